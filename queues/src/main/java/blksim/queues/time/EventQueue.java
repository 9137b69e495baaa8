package blksim.queues.time;

import java.util.Arrays;

/**
 * The one event list of a run: a binary min-heap of events keyed by {@code (timePs, seq)}.
 *
 * <p>Ordering: an earlier virtual time comes first; at the same time, the event pushed first comes
 * first (FIFO), because {@code seq} is a counter of this queue that grows by one with every push. A
 * run is therefore a pure function of the order in which events are pushed, which both engines keep
 * the same. Parallel primitive arrays keep the heap free of per-event objects.
 */
public final class EventQueue {
  private long[] times = new long[64];
  private long[] seqs = new long[64];
  private int[] targets = new int[64];
  private Object[] messages = new Object[64];
  private int size;
  private long nextSeq;
  private long lastTimePs;
  private int lastTarget;

  /** Adds an event for {@code target} at {@code timePs}; its sequence is the next of this queue. */
  public void push(long timePs, int target, Object message) {
    if (size == times.length) {
      int n = size * 2;
      times = Arrays.copyOf(times, n);
      seqs = Arrays.copyOf(seqs, n);
      targets = Arrays.copyOf(targets, n);
      messages = Arrays.copyOf(messages, n);
    }
    int i = size++;
    long seq = nextSeq++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!less(timePs, seq, times[parent], seqs[parent])) {
        break;
      }
      move(parent, i);
      i = parent;
    }
    set(i, timePs, seq, target, message);
  }

  /**
   * Removes the first event and returns its message; {@link #lastTimePs()} and {@link
   * #lastTarget()} then describe it.
   *
   * @throws IllegalStateException if the queue is empty
   */
  public Object pop() {
    if (size == 0) {
      throw new IllegalStateException("pop from an empty event queue");
    }
    lastTimePs = times[0];
    lastTarget = targets[0];
    Object message = messages[0];
    int last = --size;
    long t = times[last];
    long s = seqs[last];
    int target = targets[last];
    Object m = messages[last];
    messages[last] = null;
    int i = 0;
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && less(times[child + 1], seqs[child + 1], times[child], seqs[child])) {
        child++;
      }
      if (!less(times[child], seqs[child], t, s)) {
        break;
      }
      move(child, i);
      i = child;
    }
    if (size > 0) {
      set(i, t, s, target, m);
    }
    return message;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  public int size() {
    return size;
  }

  /** Virtual time of the first event. */
  public long peekTimePs() {
    if (size == 0) {
      throw new IllegalStateException("peek at an empty event queue");
    }
    return times[0];
  }

  /** Virtual time of the event last popped. */
  public long lastTimePs() {
    return lastTimePs;
  }

  /** Target of the event last popped. */
  public int lastTarget() {
    return lastTarget;
  }

  /** Events pushed so far. */
  public long pushed() {
    return nextSeq;
  }

  private static boolean less(long t1, long s1, long t2, long s2) {
    return t1 < t2 || (t1 == t2 && s1 < s2);
  }

  private void move(int from, int to) {
    set(to, times[from], seqs[from], targets[from], messages[from]);
  }

  private void set(int i, long t, long s, int target, Object m) {
    times[i] = t;
    seqs[i] = s;
    targets[i] = target;
    messages[i] = m;
  }
}

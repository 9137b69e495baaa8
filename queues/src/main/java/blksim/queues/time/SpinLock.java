package blksim.queues.time;

import java.util.Map;
import java.util.TreeMap;

/**
 * A spinlock as a resource in virtual time: another CPU that arrives while it is held spins until
 * it is free; taking it after another CPU held it last first moves its cache line over. It lives
 * inside the one actor that owns the structure it guards, so requests reach it in time order.
 */
public final class SpinLock {
  private final String name;
  private long busyUntilPs;
  private int lastCpu = -1;
  private long acquisitions;
  private long contended;
  private long waitedPs;

  public SpinLock(String name) {
    this(name, false);
  }

  private SpinLock(String name, boolean interleaving) {
    this.name = name;
    this.holds = interleaving ? new TreeMap<>() : null;
  }

  /**
   * A lock whose holds are kept as intervals of virtual time, so that an acquisition that its actor
   * handles after another CPU's run of holds, though at an earlier time, takes the lock in a gap
   * between them: one CPU's queue run, handled as one step, holds the lock again and again with
   * work in between, and another CPU's arriving meanwhile interleaves with it as on the machine.
   * The line comes from the CPU whose hold ends last before this one.
   */
  public static SpinLock interleaving(String name) {
    return new SpinLock(name, true);
  }

  /** How far back holds are kept (100 us): longer than any one step of the owning actor. */
  static final long WINDOW_PS = 100_000_000L;

  /** Holds kept before those older than the window go: pruning is not needed at each one. */
  private static final int PRUNE_AT = 64;

  /** Interleaving holds by start: {end, cpu}. */
  private final TreeMap<Long, long[]> holds;

  /**
   * One acquisition.
   *
   * @param waitPs time spun before the lock was free
   * @param transferPs time the lock's line took to come from the CPU that held it last (0 if this
   *     one)
   * @param releasePs when it is released
   */
  public record Acquired(long waitPs, long transferPs, long releasePs) {}

  /**
   * {@code cpu} takes the lock at {@code atPs} and holds it {@code holdPs}.
   *
   * @param lineTransferPs what moving a cache line from another core costs
   */
  public Acquired acquire(int cpu, long atPs, long holdPs, long lineTransferPs) {
    if (holds != null) {
      return acquireInGap(cpu, atPs, holdPs, lineTransferPs);
    }
    // A CPU that held the lock last released it before it went on (program order): it never
    // spins on its own hold, however little its work since cost.
    long start = lastCpu == cpu ? atPs : Math.max(atPs, busyUntilPs);
    long transfer = lastCpu >= 0 && lastCpu != cpu ? lineTransferPs : 0;
    long release = start + transfer + holdPs;
    acquisitions++;
    if (start > atPs) {
      contended++;
      waitedPs += start - atPs;
    }
    busyUntilPs = release;
    lastCpu = cpu;
    return new Acquired(start - atPs, transfer, release);
  }

  private Acquired acquireInGap(int cpu, long atPs, long holdPs, long lineTransferPs) {
    while (holds.size() > PRUNE_AT && holds.firstKey() < atPs - WINDOW_PS) {
      holds.pollFirstEntry();
    }
    long start = atPs;
    long transfer;
    if (atPs >= latestRelease) {
      // after every hold: free, and the line is where the hold that started last left it
      transfer = latestStartCpu >= 0 && latestStartCpu != cpu ? lineTransferPs : 0;
      return record(cpu, atPs, start, transfer, holdPs);
    }
    while (true) {
      long heldUntil = heldBeforeUntil(start, cpu);
      if (heldUntil > start) {
        start = heldUntil;
        continue;
      }
      int prev = previousHolder(start);
      transfer = prev >= 0 && prev != cpu ? lineTransferPs : 0;
      Map.Entry<Long, long[]> next = holds.higherEntry(start);
      while (next != null && next.getValue()[1] == cpu) {
        next = holds.higherEntry(next.getKey());
      }
      if (next == null || next.getKey() >= start + transfer + holdPs) {
        break;
      }
      start = next.getValue()[0];
    }
    return record(cpu, atPs, start, transfer, holdPs);
  }

  private Acquired record(int cpu, long atPs, long start, long transfer, long holdPs) {
    long release = start + transfer + holdPs;
    holds.put(start, new long[] {release, cpu});
    if (holds.lastKey() == start) {
      latestStartCpu = cpu;
    }
    latestRelease = Math.max(latestRelease, release);
    acquisitions++;
    if (start > atPs) {
      contended++;
      waitedPs += start - atPs;
    }
    lastCpu = cpu;
    return new Acquired(start - atPs, transfer, release);
  }

  /** The latest end of any hold, and the CPU of the hold that starts last (interleaving only). */
  private long latestRelease = Long.MIN_VALUE;

  private int latestStartCpu = -1;

  /**
   * Until when another CPU than {@code cpu} holds the lock at {@code t}, by a hold that starts at
   * or before it, or {@code Long.MIN_VALUE}. Holds of different CPUs never overlap, but one CPU's
   * own may (it let go first in program order): the holds of the CPU that starts last before {@code
   * t} are looked at back to the first of that CPU's run, any of which may reach past {@code t}.
   */
  private long heldBeforeUntil(long t, int cpu) {
    Map.Entry<Long, long[]> e = holds.floorEntry(t);
    if (e == null || e.getValue()[1] == cpu) {
      return Long.MIN_VALUE;
    }
    long holder = e.getValue()[1];
    long until = Long.MIN_VALUE;
    for (; e != null && e.getValue()[1] == holder; e = holds.lowerEntry(e.getKey())) {
      until = Math.max(until, e.getValue()[0]);
    }
    return until;
  }

  /**
   * The CPU that held the lock last before {@code t}: the hold that starts last at or before it
   * (holds of different CPUs never overlap), or -1.
   */
  private int previousHolder(long t) {
    Map.Entry<Long, long[]> e = holds.floorEntry(t);
    return e == null ? -1 : (int) e.getValue()[1];
  }

  public String name() {
    return name;
  }

  public long acquisitions() {
    return acquisitions;
  }

  /** Acquisitions that had to wait. */
  public long contended() {
    return contended;
  }

  public long waitedPs() {
    return waitedPs;
  }
}

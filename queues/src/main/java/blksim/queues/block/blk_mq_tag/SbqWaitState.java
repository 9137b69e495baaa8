package blksim.queues.block.blk_mq_tag;

import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.fs.aio.AioKiocb;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Models the wait queue of a hardware queue's {@link Tags} ({@code struct sbq_wait_state},
 * lib/sbitmap.c 5.16): the tasks that found no tag without REQ_NOWAIT sleep on it in {@code
 * blk_mq_get_tag}, and every {@code wake_batch} tags freed while someone waits wake up to {@code
 * wake_batch} of them ({@code sbitmap_queue_wake_up}: {@code wait_cnt} counts down, then {@code
 * wake_up_nr}). The kernel spreads waiters over 8 wait queues and wakes one queue at a time; with
 * the waiters blksim runs (an io-wq worker per thread, and -a1 and -S1 threads) one queue is the
 * same (docs/kernel.md sections 8, 10 and 11). Beside them, the tasks that spin for a tag (an io-wq
 * worker's {@code -EAGAIN} loop, which looks at the tags each turn) try it when one is freed.
 *
 * <p>The waiters are the caller's ({@code W}): this says who sleeps, who is woken and when; the
 * caller tells them. Each sleeping task is its own ({@link TaskOnCpu}, its CPU and its place
 * there): two tasks of one CPU that sleep each wait, and are woken, for themselves.
 *
 * @param <W> a task waiting for a tag, as the caller reaches it
 */
public final class SbqWaitState<W> {
  /** {@code SBQ_WAIT_QUEUES}. */
  public static final int SBQ_WAIT_QUEUES = 8;

  /** {@code SBQ_WAKE_BATCH}. */
  public static final int SBQ_WAKE_BATCH = 8;

  /** {@code task} asleep for a tag, and the bios it goes on with when woken. */
  private record Sleeper<W>(W waiter, TaskOnCpu task, List<Bio> bios, long sleptAtPs) {}

  /** A task spinning for a tag until {@code untilPs}: its spin {@code spin}. */
  private record Spinner<W>(W waiter, long untilPs, long spin) {}

  /** A task whose plug is flushed before it sleeps: what it still submits, whether it was woken. */
  private record Flushed(List<Bio> bios, boolean woken) {}

  /** What the wait queue tells a task: it sleeps, it is woken, its spin ended. */
  public sealed interface Answer<W> permits Slept, Woken, SpinEnded {
    /** The task told. */
    W waiter();
  }

  /** {@code waiter}'s task sleeps from {@code atPs}, with {@code bios} still to submit. */
  public record Slept<W>(W waiter, long atPs, List<Bio> bios) implements Answer<W> {}

  /** {@code waiter} woken ({@code try_to_wake_up}) at {@code atPs}. */
  public record Woken<W>(W waiter, long atPs) implements Answer<W> {}

  /** A tag freed at {@code atPs} ends {@code waiter}'s spin {@code spin}: its next turn gets it. */
  public record SpinEnded<W>(W waiter, long atPs, long spin) implements Answer<W> {}

  /**
   * What {@link #sbitmapQueueWakeUp} did: the spins it ended, the time its wakes took, the tasks it
   * woke, in the order they slept.
   */
  public record WakeUp<W>(List<SpinEnded<W>> spinsEnded, long ps, List<Woken<W>> woken) {}

  /**
   * A task that found no tag before its plug's flush sleeps at {@code atPs} with {@code bios} still
   * to submit; {@code woken} when a free woke it meanwhile ({@code schedule()} finds it runnable).
   */
  public record FlushSleep(long atPs, List<Bio> bios, boolean woken) {}

  private final Tags tags;
  private final Charger charger;
  private final int wakeBatch;
  private final ArrayDeque<Sleeper<W>> asleep = new ArrayDeque<>();
  private final List<Spinner<W>> spinning = new ArrayList<>();

  /** The tasks whose plug is being flushed before they sleep, by task. */
  private final Map<TaskOnCpu, Flushed> afterFlush = new HashMap<>();

  private int waitCnt;
  private long sleeps;

  /**
   * @param tags the tags waited for
   * @param charger charges the wakes to the freeing CPU, and the sleeps to the sleeper's
   */
  public SbqWaitState(Tags tags, Charger charger) {
    this.tags = tags;
    this.charger = charger;
    this.wakeBatch = sbqCalcWakeBatch(tags.nrTags());
    this.waitCnt = wakeBatch;
  }

  /** {@code sbq_calc_wake_batch}: depth / {@code SBQ_WAIT_QUEUES}, 1 to {@code SBQ_WAKE_BATCH}. */
  static int sbqCalcWakeBatch(int depth) {
    return Math.max(1, Math.min(SBQ_WAKE_BATCH, depth / SBQ_WAIT_QUEUES));
  }

  /** {@code sbq->wake_batch}. */
  public int wakeBatch() {
    return wakeBatch;
  }

  /**
   * Whether a bio that found no tag sleeps for one ({@code blk_mq_get_tag} without {@code
   * BLK_MQ_REQ_NOWAIT}): io-wq's issue of an io_uring read, which has neither REQ_NOWAIT nor
   * REQ_POLLED ({@code bio_set_polled} sets REQ_NOWAIT for async polled I/O), an aio read's
   * (io_submit), and a sync read's ({@code bio_set_polled} gives a sync bio no REQ_NOWAIT). Others
   * end with BLK_STS_AGAIN.
   */
  public boolean blocks(Bio bio) {
    return !bio.nowait()
        && (bio.onStack()
            || bio.owner() instanceof AioKiocb
            || (!bio.polled() && bio.owner() instanceof IoKiocb));
  }

  /** {@code waiter}, of {@code task}, onto the wait queue at {@code atPs} with {@code bios}. */
  private void sbitmapPrepareToWait(W waiter, TaskOnCpu task, List<Bio> bios, long atPs) {
    sleeps++;
    if (asleep.isEmpty()) {
      waitCnt = wakeBatch;
    }
    asleep.addLast(new Sleeper<>(waiter, task, List.copyOf(bios), atPs));
  }

  /**
   * {@code waiter}'s {@code task} sleeps on the wait queue now ({@code sbitmap_prepare_to_wait},
   * {@code io_schedule}), charged to its CPU as {@code path}, with {@code bios} still to submit,
   * the one that found no tag first. A woken task that finds no tag again sleeps so, behind the
   * others.
   *
   * @return the time it sleeps from
   */
  public long blkMqGetTagSleep(
      TaskOnCpu task, CpuTime what, W waiter, List<Bio> bios, long t, KernelFn[] path) {
    t += charger.charge(task.cpu(), what, path, 1);
    sbitmapPrepareToWait(waiter, task, bios, t);
    return t;
  }

  /**
   * {@code waiter}'s {@code task} found no tag for the first of {@code bios} with requests in its
   * plug: it is on the wait queue from now ({@code sbitmap_prepare_to_wait}), so frees count for
   * it, and it sleeps once the plug's flush has been queued ({@code schedule()}'s {@code
   * blk_flush_plug}): {@link #sleepsAfterFlush}.
   */
  public void prepareToWaitBeforeFlush(W waiter, TaskOnCpu task, List<Bio> bios, long atPs) {
    afterFlush.put(task, new Flushed(List.copyOf(bios), false));
    sbitmapPrepareToWait(waiter, task, bios, atPs);
  }

  /**
   * The plug flush of {@code task} was queued at {@code t}: if the task found no tag before it, it
   * sleeps now, charged to its CPU as {@code path}; a tag freed meanwhile has already woken it.
   *
   * @param ended whether the flush ended requests (or failed bios), which a sleep cannot report
   * @return the sleep, or null when the task does not sleep
   */
  public FlushSleep sleepsAfterFlush(
      TaskOnCpu task, CpuTime what, long t, boolean ended, KernelFn[] path) {
    Flushed f = afterFlush.remove(task);
    if (f == null) {
      return null;
    }
    if (ended) {
      throw new InvariantBroken("a plug flushed before a tag sleep ended requests");
    }
    long at = t + charger.charge(task.cpu(), what, path, 1);
    if (!f.woken()) {
      // a wake from now on comes no earlier than the sleep it ends: this task's; another task of
      // its CPU asleep here slept before
      List<Sleeper<W>> all = new ArrayList<>(asleep);
      asleep.clear();
      for (Sleeper<W> s : all) {
        asleep.addLast(s.task().equals(task) ? new Sleeper<>(s.waiter(), task, s.bios(), at) : s);
      }
    }
    return new FlushSleep(at, f.bios(), f.woken());
  }

  /** {@code freed} tags went back: the sleepers this wakes, in the order they slept. */
  private List<Sleeper<W>> freed(int freed) {
    if (asleep.isEmpty() || freed == 0) {
      return List.of();
    }
    List<Sleeper<W>> woken = new ArrayList<>();
    for (int i = 0; i < freed && !asleep.isEmpty(); i++) {
      if (--waitCnt <= 0) {
        waitCnt = wakeBatch;
        for (int w = 0; w < wakeBatch && !asleep.isEmpty(); w++) {
          woken.add(asleep.pollFirst());
        }
      }
    }
    return woken;
  }

  /**
   * {@code sbitmap_queue_wake_up} after {@code freed} tags went back at {@code t}, charged to
   * {@code cpu}: every spin under way ends, and each woken task's {@code try_to_wake_up} is
   * charged. A task woken before its plug's flush was queued is not among them: {@link
   * #sleepsAfterFlush} says it was woken.
   */
  public WakeUp<W> sbitmapQueueWakeUp(int cpu, CpuTime what, int freed, long t) {
    List<SpinEnded<W>> spinsEnded = List.of();
    if (freed > 0 && !spinning.isEmpty()) {
      spinsEnded = endSpins(t);
    }
    List<Sleeper<W>> sleepers = freed(freed);
    long ps = charger.charge(cpu, what, KernelFn.TRY_TO_WAKE_UP, sleepers.size());
    List<Woken<W>> woken = sleepers.isEmpty() ? List.of() : new ArrayList<>(sleepers.size());
    for (Sleeper<W> s : sleepers) {
      Flushed f = afterFlush.get(s.task());
      if (f != null) {
        // still flushing its plug: it learns when the flush is queued; another task of its CPU,
        // asleep already, is woken now
        afterFlush.put(s.task(), new Flushed(f.bios(), true));
      } else {
        woken.add(new Woken<>(s.waiter(), Math.max(t + ps, s.sleptAtPs())));
      }
    }
    return new WakeUp<>(spinsEnded, ps, woken);
  }

  /**
   * {@code waiter} spins for a tag until {@code untilPs} (spin {@code spin}): with a tag free now
   * its next turn gets one, and nothing is kept; otherwise the first tag freed before then ends the
   * spin ({@link WakeUp#spinsEnded}).
   *
   * @return whether a tag is free now
   */
  public boolean spin(W waiter, long untilPs, long spin) {
    if (tags.inUse() < tags.nrTags()) {
      return true;
    }
    spinning.add(new Spinner<>(waiter, untilPs, spin));
    return false;
  }

  /** A tag went back at {@code t}: every task still spinning for one tries it. */
  private List<SpinEnded<W>> endSpins(long t) {
    List<SpinEnded<W>> ended = new ArrayList<>(spinning.size());
    for (Spinner<W> m : spinning) {
      if (m.untilPs() > t) {
        ended.add(new SpinEnded<>(m.waiter(), t, m.spin()));
      }
    }
    spinning.clear();
    return ended;
  }

  /**
   * This wait queue as the call of {@code waiter}'s {@code task}, spent on {@code what}, meets it:
   * the call's own tag sleep, and the wakes of the tags it frees (charged to the task's CPU).
   */
  public Caller<W> caller(W waiter, TaskOnCpu task, CpuTime what) {
    return new Caller<>(this, waiter, task, what);
  }

  /**
   * The wait queue as one call meets it, the way blk-mq's paths ({@code blk_mq_get_tag}, {@code
   * blk_mq_free_request}) do in the calling task's context: each sleep, wake and spin's end is an
   * {@link Answer}, kept in the order it was given for the caller to deliver ({@link #told}).
   *
   * @param <W> a task waiting for a tag, as the caller reaches it
   */
  public static final class Caller<W> {
    private final SbqWaitState<W> sbq;
    private final W waiter;
    private final TaskOnCpu task;
    private final CpuTime what;
    private final List<Answer<W>> told = new ArrayList<>();

    private Caller(SbqWaitState<W> sbq, W waiter, TaskOnCpu task, CpuTime what) {
      this.sbq = sbq;
      this.waiter = waiter;
      this.task = task;
      this.what = what;
    }

    /** {@link SbqWaitState#blocks}. */
    public boolean blocks(Bio bio) {
      return sbq.blocks(bio);
    }

    /**
     * The task sleeps for a tag now ({@link SbqWaitState#blkMqGetTagSleep}), charged as {@code
     * path}, with {@code bios} still to submit: {@link Slept}.
     */
    public void blkMqGetTagSleep(List<Bio> bios, long t, KernelFn[] path) {
      long at = sbq.blkMqGetTagSleep(task, what, waiter, bios, t, path);
      told.add(new Slept<>(waiter, at, List.copyOf(bios)));
    }

    /**
     * The task found no tag with requests in its plug: on the wait queue from {@code t}, it sleeps
     * once the flush is queued ({@link SbqWaitState#prepareToWaitBeforeFlush}).
     */
    public void prepareToWaitBeforeFlush(List<Bio> bios, long t) {
      sbq.prepareToWaitBeforeFlush(waiter, task, bios, t);
    }

    /**
     * The task's plug flush was queued at {@code t}: if it found no tag before it, it sleeps now
     * ({@link SbqWaitState#sleepsAfterFlush}), {@link Slept}, and {@link Woken} if a free woke it
     * meanwhile.
     *
     * @param ended whether the flush ended requests, or failed bios, which a sleep cannot report
     * @return whether it sleeps: its call does not return then
     */
    public boolean sleepsAfterFlush(long t, boolean ended, KernelFn[] path) {
      FlushSleep s = sbq.sleepsAfterFlush(task, what, t, ended, path);
      if (s == null) {
        return false;
      }
      told.add(new Slept<>(waiter, s.atPs(), s.bios()));
      if (s.woken()) {
        told.add(new Woken<>(waiter, s.atPs()));
      }
      return true;
    }

    /**
     * {@link SbqWaitState#sbitmapQueueWakeUp} after {@code freed} tags went back at {@code t}: the
     * spins it ended, then the tasks it woke.
     *
     * @return the time the wakes took on the task's CPU
     */
    public long sbitmapQueueWakeUp(int freed, long t) {
      WakeUp<W> w = sbq.sbitmapQueueWakeUp(task.cpu(), what, freed, t);
      told.addAll(w.spinsEnded());
      told.addAll(w.woken());
      return w.ps();
    }

    /** What the wait queue told tasks during the call, in order. */
    public List<Answer<W>> told() {
      return told;
    }
  }

  /** Times a task went to sleep here. */
  public long sleeps() {
    return sleeps;
  }

  /** Tasks whose plug is being flushed before they sleep. */
  public int flushing() {
    return afterFlush.size();
  }

  /** Tasks asleep now. */
  public int asleep() {
    return asleep.size();
  }
}

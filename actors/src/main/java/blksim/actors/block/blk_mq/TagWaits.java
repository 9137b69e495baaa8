package blksim.actors.block.blk_mq;

import blksim.actors.block.BlockDevice;
import blksim.queues.block.bio.Bio;
import blksim.queues.io_uring.IoKiocb;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A hardware queue's tag wait queue ({@code struct sbq_wait_state}, lib/sbitmap.c 5.16): the tasks
 * that found no tag without REQ_NOWAIT sleep on it, and every {@code wake_batch} tags freed while
 * someone waits wake up to {@code wake_batch} of them ({@code sbitmap_queue_wake_up}: {@code
 * wait_cnt} counts down, then {@code wake_up_nr}). The kernel spreads waiters over 8 wait queues
 * and wakes one queue at a time; with the waiters blksim runs (an io-wq worker per thread, and -a1
 * and -S1 threads) one queue is the same.
 */
final class TagWaits {
  /** {@code SBQ_WAIT_QUEUES}. */
  static final int SBQ_WAIT_QUEUES = 8;

  /** {@code SBQ_WAKE_BATCH}. */
  static final int SBQ_WAKE_BATCH = 8;

  /** A task asleep for a tag, and the submission it goes on with when woken. */
  record Sleeper(BlockDevice.Call call, List<Bio> bios, long sleptAtPs) {}

  private final int wakeBatch;
  private final ArrayDeque<Sleeper> asleep = new ArrayDeque<>();
  private final List<BlockDevice.SpinFor> spinning = new ArrayList<>();
  private final java.util.Map<Integer, Flushed> afterFlush = new java.util.HashMap<>();
  private int waitCnt;
  private long sleeps;

  /**
   * @param depth the queue's tags
   */
  TagWaits(int depth) {
    // sbq_calc_wake_batch
    this.wakeBatch = Math.max(1, Math.min(SBQ_WAKE_BATCH, depth / SBQ_WAIT_QUEUES));
    this.waitCnt = wakeBatch;
  }

  /**
   * Whether a bio that found no tag sleeps for one: io-wq's issue of an io_uring read, which has
   * neither REQ_NOWAIT nor REQ_POLLED ({@code bio_set_polled} sets REQ_NOWAIT for async polled
   * I/O), an aio read's (io_submit), and a sync read's ({@code bio_set_polled} gives a sync bio no
   * REQ_NOWAIT). Others end with BLK_STS_AGAIN.
   */
  boolean blocks(Bio bio) {
    return !bio.nowait()
        && (bio.onStack()
            || bio.owner() instanceof blksim.queues.fs.aio.AioKiocb
            || (!bio.polled() && bio.owner() instanceof IoKiocb));
  }

  void sleep(BlockDevice.Call call, List<Bio> bios, long atPs) {
    sleeps++;
    if (asleep.isEmpty()) {
      waitCnt = wakeBatch;
    }
    asleep.addLast(new Sleeper(call, List.copyOf(bios), atPs));
  }

  /**
   * {@code call}'s task sleeps on the wait queue now ({@code Slept}, charged as {@code path}), with
   * {@code bios} still to submit.
   */
  void sleep(
      blksim.queues.cost.Charger charger,
      BlockDevice.Call call,
      List<Bio> bios,
      long t,
      blksim.queues.cost.KernelFn[] path,
      blksim.actors.engine.Outbox out) {
    t += charger.charge(call.cpu(), call.what(), path, 1);
    sleep(call, bios, t);
    out.send(call.replyTo(), new BlockDevice.Slept(t, List.copyOf(bios)));
  }

  /** {@code freed} tags went back: the sleepers this wakes, in the order they slept. */
  List<Sleeper> freed(int freed) {
    if (asleep.isEmpty() || freed == 0) {
      return List.of();
    }
    List<Sleeper> woken = new ArrayList<>();
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
   * A task whose plug was flushed before it slept: what it still submits, whether a free woke it.
   */
  record Flushed(List<Bio> bios, boolean woken) {}

  /**
   * {@code call}'s task found no tag for the first of {@code bios} with requests in its plug: it is
   * on the wait queue from now ({@code sbitmap_prepare_to_wait}), so frees count for it, and it
   * sleeps once the plug's flush has been queued ({@code schedule()}'s {@code blk_flush_plug}).
   */
  void sleepAfterFlush(BlockDevice.Call call, List<Bio> bios, long atPs) {
    afterFlush.put(call.cpu(), new Flushed(List.copyOf(bios), false));
    sleep(call, bios, atPs);
  }

  /**
   * The plug flush of {@code call}'s task was queued at {@code t}: if the task found no tag before
   * it, it sleeps now ({@code Slept}, charged as {@code blk_mq_get_tag}'s sleep), and a tag freed
   * meanwhile has already woken it ({@code Woken}: {@code schedule()} finds it runnable).
   *
   * @param ended whether the flush ended requests (or failed bios), which a sleep cannot report
   * @return whether the task sleeps: no {@code Submitted} for it then
   */
  boolean sleepsAfterFlush(
      blksim.queues.cost.Charger charger,
      BlockDevice.Call call,
      long t,
      boolean ended,
      blksim.actors.engine.Outbox out) {
    Flushed f = afterFlush.remove(call.cpu());
    if (f == null) {
      return false;
    }
    if (ended) {
      throw new blksim.queues.books.InvariantBroken(
          "a plug flushed before a tag sleep ended requests");
    }
    long at = t + charger.charge(call.cpu(), call.what(), HctxPaths.TAG_SLEEP_PATH, 1);
    out.send(call.replyTo(), new BlockDevice.Slept(at, f.bios()));
    if (f.woken()) {
      out.send(call.replyTo(), new BlockDevice.Woken(at));
    } else {
      // a wake from now on comes no earlier than the sleep it ends
      List<Sleeper> all = new ArrayList<>(asleep);
      asleep.clear();
      for (Sleeper s : all) {
        asleep.addLast(s.call().cpu() == call.cpu() ? new Sleeper(s.call(), s.bios(), at) : s);
      }
    }
    return true;
  }

  /**
   * {@code sbitmap_queue_wake_up} after {@code freed} tags went back, charged to {@code call}'s
   * CPU: each woken task's {@code try_to_wake_up}. Returns the time the wakes took.
   */
  long wakeUp(
      blksim.queues.cost.Charger charger,
      BlockDevice.Call call,
      int freed,
      long t,
      blksim.actors.engine.Outbox out) {
    if (freed > 0 && !spinning.isEmpty()) {
      endSpins(t, out);
    }
    List<Sleeper> woken = freed(freed);
    long ps =
        charger.charge(
            call.cpu(), call.what(), blksim.queues.cost.KernelFn.TRY_TO_WAKE_UP, woken.size());
    for (Sleeper s : woken) {
      Flushed f = afterFlush.get(s.call().cpu());
      if (f != null) {
        // still flushing its plug: it learns when the flush is queued
        afterFlush.put(s.call().cpu(), new Flushed(f.bios(), true));
      } else {
        out.send(s.call().replyTo(), new BlockDevice.Woken(Math.max(t + ps, s.sleptAtPs())));
      }
    }
    return ps;
  }

  /**
   * A task spins for a tag ({@link BlockDevice.SpinFor}); with {@code free} tags now its next turn
   * gets one.
   */
  void spin(BlockDevice.SpinFor m, boolean free, blksim.actors.engine.Outbox out) {
    if (free) {
      out.send(m.call().replyTo(), new BlockDevice.TagFreed(m.atPs(), m.spin()));
    } else {
      spinning.add(m);
    }
  }

  /** A tag went back at {@code t}: every task still spinning for one tries it. */
  private void endSpins(long t, blksim.actors.engine.Outbox out) {
    for (BlockDevice.SpinFor m : spinning) {
      if (m.untilPs() > t) {
        out.send(m.call().replyTo(), new BlockDevice.TagFreed(t, m.spin()));
      }
    }
    spinning.clear();
  }

  /** Times a task went to sleep here. */
  long sleeps() {
    return sleeps;
  }

  /** Tasks whose plug is being flushed before they sleep. */
  int flushing() {
    return afterFlush.size();
  }

  /** Tasks asleep now. */
  int asleep() {
    return asleep.size();
  }
}

package blksim.actors.block.blk_mq;

import blksim.actors.block.BlockDevice.Call;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.mq_deadline.MqDeadline;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.KernelFn;
import blksim.queues.time.SpinLock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A hardware queue's requests through mq-deadline ({@link MqDeadline}, block/blk-mq-sched.c 5.16):
 * each plug flush's list inserted under {@code dd->lock}, then the queue run's {@code
 * __blk_mq_do_dispatch_sched} taking them out one at a time, each under the lock again, each with a
 * driver tag; one that finds none waits on {@code hctx->dispatch} until a free restarts the queue.
 * The lock is the request queue's, shared by every CPU that submits to it: a CPU that finds it held
 * spins, one that takes it after another moves its line over.
 */
final class MqDeadlinePath {
  private final HwCtx hctx;
  private final MqDeadline dd;
  private final Charger charger;
  private final CostStep lockLine;
  private final CostStep tagLine;
  private final CostStep dataLines;

  /**
   * Lines of {@code struct deadline_data} (5.16) that a dispatch or insert writes besides the
   * lock's: {@code per_prio[DD_BE_PRIO]} spans bytes 96 to 191, whose second line holds the read
   * FIFO, {@code next_rq} and the counts, and {@code batching} is on the line before the lock's.
   * The sort tree's root (the first line) changes only when the root node does; the request queue's
   * {@code last_merge} and the hash buckets are left out.
   */
  static final int DATA_LINES = 2;

  private final SpinLock lock = SpinLock.interleaving("dd->lock");

  /** {@code hctx->dispatch}: requests out of mq-deadline that found no driver tag. */
  private final ArrayDeque<Request> waiting = new ArrayDeque<>();

  /** Each CPU's paused run: the request that found no driver tag, or null on hctx->dispatch. */
  private final java.util.Map<Integer, Request> pausedAt = new java.util.TreeMap<>();

  /** Whether null_blk ends each request in its queue_rq (irqmode 0 or 1, no fault). */
  private final boolean endsInQueueRq;

  /** {@code BLK_MQ_S_SCHED_RESTART}. */
  private boolean restart;

  private long waited;
  private long runs;

  /** The requests a queue run dispatched, in mq-deadline's order, and when it was done. */
  record Dispatched(List<Request> rqs, long atPs) {}

  MqDeadlinePath(HwCtx hctx, Charger charger, long lineTransferPs, boolean endsInQueueRq) {
    this.hctx = hctx;
    this.endsInQueueRq = endsInQueueRq;
    this.dd = hctx.elevator();
    this.charger = charger;
    this.lockLine = new CostStep(Contention.LINE_DD_LOCK, lineTransferPs);
    this.tagLine = new CostStep(Contention.LINE_SBITMAP_WORD, lineTransferPs);
    this.dataLines = new CostStep(Contention.LINES_DD_DATA, lineTransferPs);
  }

  /**
   * {@code dd_bio_merge} of each of {@code bios} bios the plug did not merge: the lookups miss, the
   * scheduler holding no request between submissions (dispatch never waits for a driver tag).
   */
  long bioMerges(Call call, int bios, long t) {
    long start = t;
    for (int i = 0; i < bios; i++) {
      long ps = charge(call, KernelFn.DD_BIO_MERGE, 1);
      t += ps == 0 ? 0 : locked(call, t, ps) + ps;
    }
    return t - start;
  }

  /** {@code dd_prepare_request} of {@code n} requests set up. */
  long prepare(Call call, int n) {
    return charge(call, KernelFn.DD_PREPARE_REQUEST, n);
  }

  /** Each flush's list inserted, then dispatched: what the driver's queue_rq gets, in order. */
  Dispatched run(Call call, List<List<Request>> flushes, long t) {
    List<Request> out = new ArrayList<>();
    for (List<Request> list : flushes) {
      long hold = charge(call, KernelFn.DD_INSERT_REQUEST, list.size());
      int levels = 0;
      for (Request rq : list) {
        levels += hctx.insert(rq, t);
      }
      hold += charge(call, KernelFn.ELV_RB_ADD, levels);
      long fixed = charge(call, KernelFn.DD_INSERT_REQUESTS, 1);
      t += locked(call, t, hold) + hold + fixed;
      if (!paused(call.cpu())) {
        // a run paused on an earlier list goes on over this one too when it resumes
        t = dispatch(call, t, out);
      }
    }
    return new Dispatched(out, t);
  }

  /**
   * {@code __blk_mq_sched_dispatch_requests}: the requests waiting on {@code hctx->dispatch} first,
   * then, if none is left waiting, mq-deadline's until it is empty. A request that finds no driver
   * tag stops the run. Where null_blk ends requests in queue_rq and the run already has some,
   * {@code blk_mq_dispatch_rq_list} gives those to the driver first, and their ends free the tags
   * that the request's second try takes ({@code blk_mq_prep_dispatch_rq}): the run pauses here and
   * {@link #resume}s when the driver has taken them. Otherwise the request goes to {@code
   * hctx->dispatch} and marks the queue for restart ({@code blk_mq_mark_tag_wait} with unshared
   * tags).
   */
  private long dispatch(Call call, long t, List<Request> out) {
    while (!waiting.isEmpty()) {
      Request rq = waiting.peekFirst();
      HwCtx.DriverTag got = hctx.getDriverTag(rq, call.cpu());
      t += driverTag(call, got);
      if (!got.got()) {
        if (endsInQueueRq && !out.isEmpty()) {
          pausedAt.put(call.cpu(), null);
        } else {
          restart = true;
        }
        return t;
      }
      out.add(waiting.pollFirst());
    }
    for (Request rq = dd.dispatch(t); rq != null; rq = dd.dispatch(t)) {
      long ps = charge(call, KernelFn.DD_DISPATCH_REQUEST, 1);
      t += locked(call, t, ps) + ps;
      HwCtx.DriverTag got = hctx.getDriverTag(rq, call.cpu());
      t += driverTag(call, got);
      if (!got.got()) {
        if (endsInQueueRq && !out.isEmpty()) {
          pausedAt.put(call.cpu(), rq);
        } else {
          toWait(rq);
        }
        return t;
      }
      out.add(rq);
    }
    return t;
  }

  private void toWait(Request rq) {
    waiting.addLast(rq);
    waited++;
    restart = true;
  }

  /** Whether {@code cpu}'s run paused for the driver to take what it dispatched. */
  boolean paused(int cpu) {
    return pausedAt.containsKey(cpu);
  }

  /**
   * The paused run goes on, the driver having ended its requests: the request that found no tag
   * tries again (waiting on {@code hctx->dispatch} if it still finds none), then the run.
   */
  Dispatched resume(Call call, long t) {
    Request rq = pausedAt.remove(call.cpu());
    List<Request> out = new ArrayList<>();
    if (rq != null) {
      HwCtx.DriverTag got = hctx.getDriverTag(rq, call.cpu());
      t += driverTag(call, got);
      if (!got.got()) {
        toWait(rq);
        return new Dispatched(out, t);
      }
      out.add(rq);
    }
    return new Dispatched(out, dispatch(call, t, out));
  }

  private long driverTag(Call call, HwCtx.DriverTag got) {
    return charge(call, KernelFn.BLK_MQ_GET_DRIVER_TAG, 1)
        + charger.charge(call.cpu(), call.what(), tagLine, got.remote() ? 1 : 0);
  }

  /**
   * {@code blk_mq_sched_restart} after requests were freed: with the queue marked and a driver tag
   * free again, kblockd runs it ({@code blk_mq_run_hw_queue} async; with one hardware queue {@code
   * blk_mq_hctx_next_cpu} answers WORK_CPU_UNBOUND, so the freeing CPU's own kblockd worker, woken,
   * preempts what runs there). Null when no run is due.
   *
   * @param call the freeing CPU, as its kblockd worker
   */
  Dispatched restart(Call call, long t) {
    if (!restart || hctx.driverTags().inUse() == hctx.driverTags().nrTags()) {
      return null;
    }
    restart = false;
    runs++;
    List<Request> out = new ArrayList<>();
    t = dispatch(call, t + charger.charge(call.cpu(), call.what(), HctxPaths.KBLOCKD_PATH, 1), out);
    return new Dispatched(out, t);
  }

  /** The lock's counts, the waits for a driver tag, kblockd's restarts. */
  SchedStats stats() {
    return new SchedStats(
        hctx.driverTags().nrTags(),
        lock.acquisitions(),
        lock.contended(),
        lock.waitedPs(),
        waited,
        runs);
  }

  /** Requests waiting on hctx->dispatch now, or paused in a run. */
  int waiting() {
    return waiting.size() + pausedAt.size();
  }

  /** Takes {@code dd->lock} at {@code t} for {@code holdPs}: the spin and the line, charged. */
  private long locked(Call call, long t, long holdPs) {
    // taken from another CPU, the lock brings its line and the two data lines (held meanwhile)
    long lines = (1 + DATA_LINES) * lockLine.ps();
    SpinLock.Acquired a = lock.acquire(call.cpu(), t, holdPs, lines);
    long ps = charger.lock(call.cpu(), call.what(), a, Contention.LOCK_WAIT_DD_LOCK, lockLine);
    return ps
        + charger.charge(call.cpu(), call.what(), dataLines, a.transferPs() > 0 ? DATA_LINES : 0);
  }

  private long charge(Call call, KernelFn fn, int calls) {
    return charger.charge(call.cpu(), call.what(), fn, calls);
  }
}

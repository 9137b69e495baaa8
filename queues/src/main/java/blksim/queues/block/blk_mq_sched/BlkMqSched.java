package blksim.queues.block.blk_mq_sched;

import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.mq_deadline.MqDeadlineOps;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A hardware queue's requests through its scheduler (block/blk-mq-sched.c 5.16, with mq-deadline's
 * {@link MqDeadlineOps} on its {@link blksim.queues.block.mq_deadline.MqDeadline}): each plug
 * flush's list inserted ({@code blk_mq_sched_insert_requests}), then the queue run ({@code
 * __blk_mq_sched_dispatch_requests}) taking them out one at a time, each with a driver tag; one
 * that finds none waits on {@code hctx->dispatch}, the queue marked {@code BLK_MQ_S_SCHED_RESTART},
 * until a free restarts it ({@code blk_mq_sched_restart}). Each call is charged to the CPU that
 * runs it, as the CPU time it gives; docs/kernel.md section 12.
 */
public final class BlkMqSched {
  private final HwCtx hctx;
  private final MqDeadlineOps ops;
  private final Charger charger;
  private final CostStep tagLine;
  private final KernelFn[] kblockdPath;

  /** {@code hctx->dispatch}: requests out of mq-deadline that found no driver tag. */
  private final ArrayDeque<Request> waiting = new ArrayDeque<>();

  /**
   * Each task's paused run ({@link TaskOnCpu}): the request that found no driver tag, or null on
   * hctx->dispatch.
   */
  private final Map<TaskOnCpu, Request> pausedAt = new HashMap<>();

  /** Whether the driver ends each request in its queue_rq (null_blk irqmode 0 or 1, no fault). */
  private final boolean endsInQueueRq;

  /** {@code BLK_MQ_S_SCHED_RESTART}. */
  private boolean restart;

  private long waited;
  private long runs;

  /** The requests a queue run dispatched, in mq-deadline's order, and when it was done. */
  public record Dispatched(List<Request> rqs, long atPs) {}

  /**
   * @param hctx a queue with a scheduler ({@link HwCtx#elevator()})
   * @param lineTransferPs what moving a cache line from another core costs
   * @param endsInQueueRq whether the driver ends each request in its queue_rq
   * @param kblockdPath what kblockd's worker runs for a queue run it is woken for ({@code
   *     blk_mq_run_work_fn} between two switches)
   */
  public BlkMqSched(
      HwCtx hctx,
      Charger charger,
      long lineTransferPs,
      boolean endsInQueueRq,
      KernelFn[] kblockdPath) {
    this.hctx = hctx;
    this.endsInQueueRq = endsInQueueRq;
    this.ops = new MqDeadlineOps(hctx, charger, lineTransferPs);
    this.charger = charger;
    this.tagLine = new CostStep(Contention.LINE_SBITMAP_WORD, lineTransferPs);
    this.kblockdPath = kblockdPath;
  }

  /**
   * {@code blk_mq_sched_bio_merge} of each of {@code bios} bios the plug did not merge: the
   * scheduler's {@code bio_merge} ({@link MqDeadlineOps#ddBioMerge}).
   *
   * @return the time the calls took
   */
  public long blkMqSchedBioMerge(int cpu, CpuTime what, int bios, long t) {
    return ops.ddBioMerge(cpu, what, bios, t);
  }

  /**
   * The scheduler's {@code prepare_request} of {@code n} requests set up ({@code
   * blk_mq_rq_ctx_init}'s RQF_ELV part).
   */
  public long prepareRequest(int cpu, CpuTime what, int n) {
    return ops.ddPrepareRequest(cpu, what, n);
  }

  /**
   * {@code blk_mq_sched_insert_requests} of each plug flush's list in turn, each inserted under the
   * lock and the queue run after it ({@code blk_mq_run_hw_queue}): what the driver's queue_rq gets,
   * in order, charged to {@code task}'s CPU. A run of {@code task}'s paused on an earlier list goes
   * on over this one too when it {@linkplain #resumeDispatchRqList resumes}.
   */
  public Dispatched blkMqSchedInsertRequests(
      TaskOnCpu task, CpuTime what, List<List<Request>> flushes, long t) {
    List<Request> out = new ArrayList<>();
    for (List<Request> list : flushes) {
      t = ops.ddInsertRequests(task.cpu(), what, list, t);
      if (!paused(task)) {
        t = blkMqSchedDispatchRequests(task, what, t, out);
      }
    }
    return new Dispatched(out, t);
  }

  /**
   * {@code __blk_mq_sched_dispatch_requests}: the requests waiting on {@code hctx->dispatch} first
   * ({@code blk_mq_dispatch_rq_list}), then, if none is left waiting, mq-deadline's ({@code
   * __blk_mq_do_dispatch_sched}). A request that finds no driver tag stops the run.
   *
   * @return the time the run is done or stopped
   */
  private long blkMqSchedDispatchRequests(TaskOnCpu task, CpuTime what, long t, List<Request> out) {
    int cpu = task.cpu();
    while (!waiting.isEmpty()) {
      Request rq = waiting.peekFirst();
      HwCtx.DriverTag got = hctx.getDriverTag(rq, cpu);
      t += driverTag(cpu, what, got);
      if (!got.got()) {
        noDriverTag(task, null, out);
        return t;
      }
      out.add(waiting.pollFirst());
    }
    return blkMqDoDispatchSched(task, what, t, out);
  }

  /**
   * {@code __blk_mq_do_dispatch_sched}: mq-deadline's requests one at a time ({@link
   * MqDeadlineOps#ddDispatchRequest}), each with its driver tag, until it holds none or one finds
   * no tag.
   */
  private long blkMqDoDispatchSched(TaskOnCpu task, CpuTime what, long t, List<Request> out) {
    int cpu = task.cpu();
    for (MqDeadlineOps.Dispatch d = ops.ddDispatchRequest(cpu, what, t);
        d != null;
        d = ops.ddDispatchRequest(cpu, what, t)) {
      t = d.atPs();
      HwCtx.DriverTag got = hctx.getDriverTag(d.rq(), cpu);
      t += driverTag(cpu, what, got);
      if (!got.got()) {
        noDriverTag(task, d.rq(), out);
        return t;
      }
      out.add(d.rq());
    }
    return t;
  }

  /**
   * A request found no driver tag ({@code rq}, or null for the head of {@code hctx->dispatch},
   * which stays there). Where the driver ends requests in queue_rq and the run already has some,
   * {@code blk_mq_dispatch_rq_list} gives those to the driver first, and their ends free the tags
   * that the request's second try takes ({@code blk_mq_prep_dispatch_rq}): the run pauses and goes
   * on at {@link #resumeDispatchRqList}. Otherwise the request goes to {@code hctx->dispatch} and
   * marks the queue for restart ({@code blk_mq_mark_tag_wait} with unshared tags).
   */
  private void noDriverTag(TaskOnCpu task, Request rq, List<Request> out) {
    if (endsInQueueRq && !out.isEmpty()) {
      pausedAt.put(task, rq);
    } else if (rq == null) {
      restart = true;
    } else {
      toWait(rq);
    }
  }

  /** The request onto {@code hctx->dispatch}, the queue marked {@code BLK_MQ_S_SCHED_RESTART}. */
  private void toWait(Request rq) {
    waiting.addLast(rq);
    waited++;
    restart = true;
  }

  /** Whether {@code task}'s run paused for the driver to take what it dispatched. */
  public boolean paused(TaskOnCpu task) {
    return pausedAt.containsKey(task);
  }

  /**
   * {@code task}'s paused run goes on, the driver having ended its requests ({@code
   * blk_mq_dispatch_rq_list}'s next request): the request that found no tag tries again ({@code
   * blk_mq_prep_dispatch_rq}), waiting on {@code hctx->dispatch} if it still finds none, then the
   * run.
   */
  public Dispatched resumeDispatchRqList(TaskOnCpu task, CpuTime what, long t) {
    Request rq = pausedAt.remove(task);
    List<Request> out = new ArrayList<>();
    if (rq != null) {
      HwCtx.DriverTag got = hctx.getDriverTag(rq, task.cpu());
      t += driverTag(task.cpu(), what, got);
      if (!got.got()) {
        toWait(rq);
        return new Dispatched(out, t);
      }
      out.add(rq);
    }
    return new Dispatched(out, blkMqSchedDispatchRequests(task, what, t, out));
  }

  /** {@code blk_mq_get_driver_tag}'s call, and its sbitmap word's line when another CPU's. */
  private long driverTag(int cpu, CpuTime what, HwCtx.DriverTag got) {
    return charger.charge(cpu, what, KernelFn.BLK_MQ_GET_DRIVER_TAG, 1)
        + charger.charge(cpu, what, tagLine, got.remote() ? 1 : 0);
  }

  /**
   * {@code blk_mq_sched_restart} after requests were freed: with the queue marked and a driver tag
   * free again, kblockd runs it ({@code blk_mq_run_hw_queue} async; with one hardware queue {@code
   * blk_mq_hctx_next_cpu} answers WORK_CPU_UNBOUND, so the freeing CPU's own kblockd worker, woken,
   * preempts what runs there). Null when no run is due.
   *
   * @param task the call that freed them, on whose CPU kblockd's worker runs the queue; a run that
   *     pauses is that call's
   * @param what the CPU time of kblockd's worker
   */
  public Dispatched blkMqSchedRestart(TaskOnCpu task, CpuTime what, long t) {
    if (!restart || hctx.driverTags().inUse() == hctx.driverTags().nrTags()) {
      return null;
    }
    restart = false;
    runs++;
    List<Request> out = new ArrayList<>();
    t =
        blkMqSchedDispatchRequests(
            task, what, t + charger.charge(task.cpu(), what, kblockdPath, 1), out);
    return new Dispatched(out, t);
  }

  /** Whether the queue is marked {@code BLK_MQ_S_SCHED_RESTART}. */
  public boolean restartMarked() {
    return restart;
  }

  /** The lock's counts, the waits for a driver tag, kblockd's restarts. */
  public SchedStats stats() {
    return new SchedStats(
        hctx.driverTags().nrTags(),
        ops.lock().acquisitions(),
        ops.lock().contended(),
        ops.lock().waitedPs(),
        waited,
        runs);
  }

  /** Requests waiting on hctx->dispatch now, or paused in a run. */
  public int waiting() {
    return waiting.size() + pausedAt.size();
  }
}

package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_sched.BlkMqSched;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code blk_mq_flush_plug_list} (block/blk-mq.c 5.16) of a submission's plug into the driver's
 * {@code queue_rq}, straight ({@code blk_mq_try_issue_list_directly}) or through the scheduler
 * ({@code blk_mq_sched_insert_requests}), and what follows when {@code queue_rq} returns: the
 * requests the driver ended in it end on the submitting CPU ({@link EndRequest}), those it turned
 * away go to kblockd ({@link RunWork}), and {@code submit_bio} returns with the bios that ended and
 * those that found no tag.
 */
public final class FlushPlugList {
  /**
   * A dispatch of the plug's requests, per request: the flush, each request's issue in its {@code
   * hctx_lock} RCU section, and its start.
   */
  static final KernelFn[] DISPATCH_PATH = {
    KernelFn.BLK_MQ_FLUSH_PLUG_LIST,
    KernelFn.RCU_READ_LOCK_HCTX,
    KernelFn.BLK_MQ_START_REQUEST,
    KernelFn.RCU_READ_UNLOCK_HCTX
  };

  private final HwCtx hctx;
  private final Charger charger;
  private final BlkMqSched sched;
  private final EndRequest ends;
  private final RunWork runWork;

  /** The bios of each task's submission under way that found no tag ({@code BLK_STS_AGAIN}). */
  private final Map<TaskOnCpu, List<Bio>> wouldBlock = new HashMap<>();

  /**
   * @param sched the queue's scheduler, or null for none
   */
  public FlushPlugList(
      HwCtx hctx, Charger charger, BlkMqSched sched, EndRequest ends, RunWork runWork) {
    this.hctx = hctx;
    this.charger = charger;
    this.sched = sched;
    this.ends = ends;
    this.runWork = runWork;
  }

  /**
   * {@code blk_mq_flush_plug_list} of what the submission of {@code task} plugged, at {@code t}:
   * the requests, in the scheduler's order under one, started and handed to the driver's {@code
   * queue_rq}; {@code failed}, the submission's bios that found no tag, wait for its return.
   */
  Continuation.QueueRqs blkMqFlushPlugList(
      TaskOnCpu task, CpuTime what, Plug plug, long t, List<Bio> failed) {
    if (!failed.isEmpty()) {
      wouldBlock.put(task, failed);
    }
    List<Request> rqs = new ArrayList<>(plug.size());
    if (sched == null) {
      plug.finish().forEach(rqs::addAll);
    } else {
      BlkMqSched.Dispatched d = sched.blkMqSchedInsertRequests(task, what, plug.finish(), t);
      rqs = d.rqs();
      t = d.atPs();
    }
    rqs.forEach(hctx::dispatched);
    t += charger.charge(task.cpu(), what, DISPATCH_PATH, rqs.size());
    return new Continuation.QueueRqs(t, rqs, what);
  }

  /**
   * The driver's {@code queue_rq} of what {@code task} dispatched returned at {@code atPs}: it took
   * {@code count} requests, completed {@code completed} of them at once (through {@code
   * blk_mq_complete_request} if {@code viaCompleteRequest}), and turned away {@code busy} ({@code
   * BLK_STS_RESOURCE}) and {@code requeued} ({@code blk_mq_requeue_request}). The completed end
   * here, on the dispatching task's CPU; then kblockd dispatches what was turned away, a queue run
   * that paused for these ends goes on, or mq-deadline's restart runs; when none of them goes to
   * the driver, the submission returns, or its task sleeps for the tag it found none of.
   *
   * @param what the dispatcher's CPU time: {@link CpuTime#KWORKER} for a round kblockd ran
   */
  public Continuation queueRqReturned(
      TaskOnCpu task,
      CpuTime what,
      long atPs,
      int count,
      List<Request> completed,
      boolean viaCompleteRequest,
      List<Request> busy,
      List<Request> requeued,
      SbqWaitState.Caller<?> waits) {
    int cpu = task.cpu();
    long t = atPs;
    List<Bio> irq = runWork.irqRestartQueued(task, what);
    if (irq != null) {
      // kblockd's restart was queued (by timers: nothing ended in queue_rq): the interrupt goes on
      return new Continuation.IrqEnded(t, irq);
    }
    if (viaCompleteRequest) {
      t += charger.charge(cpu, what, KernelFn.BLK_MQ_COMPLETE_REQUEST, completed.size());
    }
    EndRequest.Ended e = ends.blkMqEndRequest(cpu, what, completed, t);
    t += e.ps();
    t += waits.sbitmapQueueWakeUp(completed.size(), t);
    List<Bio> ended = runWork.withEarlier(task, e.bios());
    if (!busy.isEmpty() || !requeued.isEmpty()) {
      return runWork.redispatch(task, what, t, count, busy, requeued, ended);
    }
    int mine = what == CpuTime.KWORKER ? 0 : count;
    RunWork.Run resumed = runWork.resumeAfterQueueRq(task, what, t, ended, mine);
    if (resumed.queueRqs() != null) {
      return resumed.queueRqs();
    }
    RunWork.Run restarted = runWork.restartAfterQueueRq(task, resumed.atPs(), ended, mine);
    if (restarted.queueRqs() != null) {
      return restarted.queueRqs();
    }
    t = restarted.atPs();
    List<Bio> failed = wouldBlock.remove(task);
    if (waits.sleepsAfterFlush(t, !ended.isEmpty() || failed != null, SubmitBio.TAG_SLEEP_PATH)) {
      return Continuation.ASLEEP;
    }
    return new Continuation.Submitted(
        t, runWork.queuedBefore(task) + mine, ended, failed == null ? List.of() : failed);
  }

  /** Whether no submission's bios that found no tag wait for their flush to return. */
  public boolean idle() {
    return wouldBlock.isEmpty();
  }
}

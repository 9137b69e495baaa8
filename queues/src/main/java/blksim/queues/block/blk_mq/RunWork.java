package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_sched.BlkMqSched;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * kblockd's runs of a hardware queue on the CPU of a call (block/blk-mq.c 5.16: {@code
 * hctx->run_work}, {@code blk_mq_run_work_fn}, and {@code q->requeue_work}): the requests the
 * driver turned away ({@code BLK_STS_RESOURCE}, {@code blk_mq_requeue_request}) dispatched again,
 * and mq-deadline's restart after frees ({@code blk_mq_sched_restart}) from queue_rq or from a
 * timer's interrupt. kblockd is a bound workqueue of that CPU, whose worker, woken, preempts the
 * caller there: each run is a round at the driver, and what the earlier rounds ended waits here
 * until the call, or the interrupt, goes on. What waits is the calling task's ({@link TaskOnCpu}),
 * so tasks of one CPU never share it.
 */
public final class RunWork {
  /** A request the driver gave to blk_mq_requeue_request, and kblockd's requeue work for it. */
  static final KernelFn[] REQUEUE_PATH = {
    KernelFn.BLK_MQ_REQUEUE_REQUEST, KernelFn.BLK_MQ_REQUEUE_WORK
  };

  /**
   * kblockd, a bound workqueue of the submitting CPU, woken to dispatch what the driver turned
   * away: it preempts the submitter there and gives the CPU back.
   */
  public static final KernelFn[] KBLOCKD_PATH = {
    KernelFn.TRY_TO_WAKE_UP, KernelFn.SCHEDULE, KernelFn.BLK_MQ_RUN_WORK, KernelFn.SCHEDULE
  };

  /**
   * What a queue run after a round left: the time the call goes on at, or the next round it hands
   * the driver.
   *
   * @param queueRqs the next round, or null when the call goes on at {@code atPs}
   */
  record Run(long atPs, Continuation.QueueRqs queueRqs) {
    /** The call goes on at {@code atPs}. */
    static Run goesOn(long atPs) {
      return new Run(atPs, null);
    }

    /** The next round goes to the driver. */
    static Run round(Continuation.QueueRqs q) {
      return new Run(q.atPs(), q);
    }
  }

  private final HwCtx hctx;
  private final Charger charger;
  private final BlkMqSched sched;

  /** Bios the driver ended in the earlier rounds of a call under way, by task. */
  private final Map<TaskOnCpu, List<Bio>> endedEarlier = new HashMap<>();

  /** Requests the driver took in those earlier rounds, by task. */
  private final Map<TaskOnCpu, Integer> queuedEarlier = new HashMap<>();

  /**
   * The bios each CPU's interrupt ended, held while its kblockd restart is at the driver, by the
   * interrupt's task.
   */
  private final Map<TaskOnCpu, List<Bio>> restarting = new HashMap<>();

  /**
   * @param sched the queue's scheduler, or null for none
   */
  public RunWork(HwCtx hctx, Charger charger, BlkMqSched sched) {
    this.hctx = hctx;
    this.charger = charger;
    this.sched = sched;
  }

  /** The bios of this round, after those the call's earlier rounds ended. */
  List<Bio> withEarlier(TaskOnCpu task, List<Bio> ended) {
    List<Bio> before = endedEarlier.remove(task);
    if (before == null) {
      return ended;
    }
    before.addAll(ended);
    return before;
  }

  /** Requests of the call under way that the driver took in its earlier rounds. */
  int queuedBefore(TaskOnCpu task) {
    Integer n = queuedEarlier.remove(task);
    return n == null ? 0 : n;
  }

  /**
   * The driver turned requests away: back on the dispatch list ({@code BLK_STS_RESOURCE}, {@code
   * blk_mq_request_bypass_insert}) or on the requeue list ({@code blk_mq_requeue_request}), then
   * kblockd's work dispatches them again, charged to the call: it goes on when the driver has taken
   * them all.
   *
   * @param count the requests the driver took in this round, those turned away among them
   */
  Continuation.QueueRqs redispatch(
      TaskOnCpu task,
      CpuTime what,
      long t,
      int count,
      List<Request> busy,
      List<Request> requeued,
      List<Bio> ended) {
    List<Request> again = new ArrayList<>(busy.size() + requeued.size());
    for (Request rq : busy) {
      hctx.turnedAway(rq, true);
    }
    for (Request rq : requeued) {
      hctx.turnedAway(rq, false);
    }
    again.addAll(busy);
    again.addAll(requeued);
    int cpu = task.cpu();
    t +=
        charger.charge(cpu, what, KernelFn.BLK_MQ_BYPASS_INSERT, busy.size())
            + charger.charge(cpu, what, REQUEUE_PATH, requeued.size())
            + charger.charge(cpu, what, KBLOCKD_PATH, 1)
            + charger.charge(cpu, what, FlushPlugList.DISPATCH_PATH, again.size());
    for (Request rq : again) {
      hctx.redispatched(rq);
    }
    endedEarlier.put(task, new ArrayList<>(ended));
    queuedEarlier.merge(task, count - again.size(), Integer::sum);
    return new Continuation.QueueRqs(t, again, what);
  }

  /**
   * After a round's requests ended in queue_rq: the queue run that paused for them goes on in the
   * same context ({@code blk_mq_dispatch_rq_list}'s next request), if one did.
   *
   * @param mine the requests of the call's own that this round queued
   */
  Run resumeAfterQueueRq(TaskOnCpu task, CpuTime what, long t, List<Bio> ended, int mine) {
    if (sched == null || !sched.paused(task)) {
      return Run.goesOn(t);
    }
    BlkMqSched.Dispatched d = sched.resumeDispatchRqList(task, what, t);
    if (d.rqs().isEmpty()) {
      return Run.goesOn(d.atPs());
    }
    endedEarlier.put(task, new ArrayList<>(ended));
    queuedEarlier.merge(task, mine, Integer::sum);
    return Run.round(queueRqs(task, what, d));
  }

  /**
   * After a round's requests ended in queue_rq: mq-deadline's restart, if the frees made one due;
   * kblockd, woken here, preempts the call.
   *
   * @param mine the requests of the call's own that this round queued
   */
  Run restartAfterQueueRq(TaskOnCpu task, long t, List<Bio> ended, int mine) {
    BlkMqSched.Dispatched d =
        sched == null ? null : sched.blkMqSchedRestart(task, CpuTime.KWORKER, t);
    if (d == null) {
      return Run.goesOn(t);
    }
    if (d.rqs().isEmpty()) {
      return Run.goesOn(d.atPs());
    }
    endedEarlier.put(task, new ArrayList<>(ended));
    queuedEarlier.merge(task, mine, Integer::sum);
    return Run.round(queueRqs(task, CpuTime.KWORKER, d));
  }

  /**
   * After a timer's interrupt ended requests: mq-deadline's restart, whose dispatch goes to the
   * driver first; the interrupt's bios end after it.
   */
  Run restartAfterIrq(TaskOnCpu task, long t, List<Bio> ended) {
    BlkMqSched.Dispatched d =
        sched == null ? null : sched.blkMqSchedRestart(task, CpuTime.KWORKER, t);
    if (d == null) {
      return Run.goesOn(t);
    }
    if (d.rqs().isEmpty()) {
      return Run.goesOn(d.atPs());
    }
    restarting.put(task, ended);
    return Run.round(queueRqs(task, CpuTime.KWORKER, d));
  }

  /**
   * The bios an interrupt ended, when this answer of the driver is its restart's (the round was
   * kblockd's, {@code what} {@link CpuTime#KWORKER}), or null.
   */
  List<Bio> irqRestartQueued(TaskOnCpu task, CpuTime what) {
    return what == CpuTime.KWORKER ? restarting.remove(task) : null;
  }

  /** The queue run hands what it dispatched to the driver. */
  private Continuation.QueueRqs queueRqs(TaskOnCpu task, CpuTime what, BlkMqSched.Dispatched d) {
    d.rqs().forEach(hctx::dispatched);
    long at =
        d.atPs() + charger.charge(task.cpu(), what, FlushPlugList.DISPATCH_PATH, d.rqs().size());
    return new Continuation.QueueRqs(at, d.rqs(), what);
  }

  /** Nothing of a round left half done. */
  public boolean idle() {
    return endedEarlier.isEmpty() && queuedEarlier.isEmpty() && restarting.isEmpty();
  }
}

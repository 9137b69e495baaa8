package blksim.actors.block.blk_mq;

import blksim.actors.block.BlockDevice.Call;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.blk_mq_sched.BlkMqSched;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rounds a call makes at the driver when kblockd runs the hardware queue again on its CPU: the
 * requests the driver turned away ({@code BLK_STS_RESOURCE}, {@code blk_mq_requeue_request}), and
 * mq-deadline's restart after frees ({@code blk_mq_sched_restart}) from queue_rq or from a timer's
 * interrupt. What the earlier rounds ended waits here until the call, or the interrupt, goes on.
 */
final class KblockdRounds {
  private final HwCtx hctx;
  private final SimRef<NullBlkActor.Command> driver;
  private final Charger charger;
  private final BlkMqSched sched;

  /** Bios the driver ended in the earlier rounds of a call under way, by CPU. */
  private final Map<Integer, List<Bio>> endedEarlier = new HashMap<>();

  /** Requests the driver took in those earlier rounds, by CPU. */
  private final Map<Integer, Integer> queuedEarlier = new HashMap<>();

  /** The bios each CPU's interrupt ended, held while its kblockd restart is at the driver. */
  private final Map<Integer, List<Bio>> restarting = new HashMap<>();

  KblockdRounds(
      HwCtx hctx, SimRef<NullBlkActor.Command> driver, Charger charger, BlkMqSched sched) {
    this.hctx = hctx;
    this.driver = driver;
    this.charger = charger;
    this.sched = sched;
  }

  /** The same CPU, as its kblockd worker: its work is CPU time kworker. */
  static Call kblockd(Call call) {
    return new Call(call.cpu(), CpuTime.KWORKER, null, call.interrupts(), null);
  }

  /** The bios of this round, after those the call's earlier rounds ended. */
  List<Bio> withEarlier(int cpu, List<Bio> ended) {
    List<Bio> before = endedEarlier.remove(cpu);
    if (before == null) {
      return ended;
    }
    before.addAll(ended);
    return before;
  }

  /** Requests of the call under way that the driver took in its earlier rounds. */
  int queuedBefore(int cpu) {
    Integer n = queuedEarlier.remove(cpu);
    return n == null ? 0 : n;
  }

  /**
   * The driver turned requests away: back on the dispatch list ({@code BLK_STS_RESOURCE}) or on the
   * requeue list ({@code blk_mq_requeue_request}), then kblockd's work dispatches them again.
   * kblockd is a bound workqueue of the submitting CPU, whose worker, woken, preempts the submitter
   * there: the call goes on when the driver has taken them all.
   */
  void redispatch(NullBlkActor.Queued m, Call call, long t, List<Bio> ended, Outbox out) {
    List<Request> again = new ArrayList<>(m.busy().size() + m.requeued().size());
    m.busy().forEach(rq -> hctx.turnedAway(rq, true));
    m.requeued().forEach(rq -> hctx.turnedAway(rq, false));
    again.addAll(m.busy());
    again.addAll(m.requeued());
    t +=
        charge(call, KernelFn.BLK_MQ_BYPASS_INSERT, m.busy().size())
            + charge(call, HctxPaths.REQUEUE_PATH, m.requeued().size())
            + charger.charge(call.cpu(), call.what(), HctxPaths.KBLOCKD_PATH, 1)
            + charge(call, HctxPaths.DISPATCH_PATH, again.size());
    for (Request rq : again) {
      hctx.redispatched(rq);
    }
    endedEarlier.put(call.cpu(), new ArrayList<>(ended));
    queuedEarlier.merge(call.cpu(), m.count() - again.size(), Integer::sum);
    out.send(driver, new NullBlkActor.QueueRqs(t, hctx.index(), again, call.exec()));
  }

  /**
   * After a round's requests ended in queue_rq: the queue run that paused for them goes on in the
   * same context ({@code blk_mq_dispatch_rq_list}'s next request), if one did.
   *
   * @param mine the requests of the call's own that this round queued
   * @return the time the call goes on, or -1 when the run's next round went to the driver
   */
  long resumeAfterQueueRq(Call call, long t, List<Bio> ended, int mine, Outbox out) {
    if (sched == null || !sched.paused(call.cpu())) {
      return t;
    }
    BlkMqSched.Dispatched d = sched.resumeDispatchRqList(call.cpu(), call.what(), t);
    if (d.rqs().isEmpty()) {
      return d.atPs();
    }
    endedEarlier.put(call.cpu(), new ArrayList<>(ended));
    queuedEarlier.merge(call.cpu(), mine, Integer::sum);
    send(call, d, out);
    return -1;
  }

  /**
   * After a round's requests ended in queue_rq: mq-deadline's restart, if the frees made one due.
   *
   * @param mine the requests of the call's own that this round queued
   * @return the time the call goes on, or -1 when a restart round went to the driver
   */
  long restartAfterQueueRq(Call call, long t, List<Bio> ended, int mine, Outbox out) {
    BlkMqSched.Dispatched d =
        sched == null ? null : sched.blkMqSchedRestart(call.cpu(), CpuTime.KWORKER, t);
    if (d == null) {
      return t;
    }
    if (d.rqs().isEmpty()) {
      return d.atPs();
    }
    // the frees in queue_rq restarted the queue: kblockd, woken here, preempts the call
    endedEarlier.put(call.cpu(), new ArrayList<>(ended));
    queuedEarlier.merge(call.cpu(), mine, Integer::sum);
    send(kblockd(call), d, out);
    return -1;
  }

  /**
   * After a timer's interrupt ended requests: mq-deadline's restart, whose dispatch goes to the
   * driver first; the interrupt's bios end after it.
   *
   * @return the time the interrupt goes on, or -1 when a restart round went to the driver
   */
  long restartAfterIrq(Call call, long t, List<Bio> ended, Outbox out) {
    BlkMqSched.Dispatched d =
        sched == null ? null : sched.blkMqSchedRestart(call.cpu(), CpuTime.KWORKER, t);
    if (d == null) {
      return t;
    }
    if (d.rqs().isEmpty()) {
      return d.atPs();
    }
    restarting.put(call.cpu(), ended);
    send(kblockd(call), d, out);
    return -1;
  }

  /**
   * The bios an interrupt ended, when this answer of the driver is its restart's ({@code call} is
   * kblockd's), or null.
   */
  List<Bio> irqRestartQueued(Call call) {
    return call.what() == CpuTime.KWORKER ? restarting.remove(call.cpu()) : null;
  }

  /** kblockd's queue run hands what it dispatched to the driver. */
  private void send(Call kblockd, BlkMqSched.Dispatched d, Outbox out) {
    d.rqs().forEach(hctx::dispatched);
    long at = d.atPs() + charge(kblockd, HctxPaths.DISPATCH_PATH, d.rqs().size());
    out.send(driver, new NullBlkActor.QueueRqs(at, hctx.index(), d.rqs(), kblockd.exec()));
  }

  private long charge(Call call, KernelFn fn, int calls) {
    return charger.charge(call.cpu(), call.what(), fn, calls);
  }

  private long charge(Call call, KernelFn[] fns, int calls) {
    return charger.charge(call.cpu(), call.what(), fns, calls);
  }

  /** Nothing of a round left half done. */
  boolean idle() {
    return endedEarlier.isEmpty() && queuedEarlier.isEmpty() && restarting.isEmpty();
  }
}

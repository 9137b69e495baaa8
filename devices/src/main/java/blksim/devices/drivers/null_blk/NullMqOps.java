package blksim.devices.drivers.null_blk;

import blksim.queues.block.blk_mq.Request;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.time.SpinLock;
import java.util.List;

/**
 * The operations null_blk gives blk-mq ({@code static const struct blk_mq_ops null_mq_ops},
 * drivers/block/null_blk/main.c, 5.16-6.6): {@code .queue_rq = null_queue_rq}, {@code .poll =
 * null_poll}, {@code .complete = null_complete_rq}, {@code .timeout = null_timeout_rq}, and the
 * command's hrtimer {@code null_cmd_timer_expired}, each over one device's {@link NullBlk} and
 * charged to the CPU that calls it, in its device's own ledger. Each returns what it did and when
 * it returned; the caller tells the hardware queue and arms the timers (docs/kernel.md 3.3).
 */
public final class NullMqOps {
  /**
   * What each request {@code null_queue_rq} completes through BLOCK_SOFTIRQ costs: {@code
   * blk_mq_complete_request}, then {@code blk_mq_raise_softirq} (block/blk-mq.c, 6.6).
   */
  private static final KernelFn[] RAISE_PATH = {
    KernelFn.BLK_MQ_COMPLETE_REQUEST, KernelFn.BLK_MQ_RAISE_SOFTIRQ
  };

  /**
   * What {@link #nullQueueRq} did with each request of a dispatch.
   *
   * @param atPs when the last {@code null_queue_rq} returned, after any {@code
   *     blk_mq_raise_softirq}: the caller's time spent, its {@code poll_lock} waits included
   * @param onPollList requests appended to the poll queue's {@code poll_list}: only {@link
   *     #nullPoll} ends them
   * @param completed requests completed at once (irqmode 0, or 1 on several hardware queues)
   * @param viaCompleteRequest whether those went through {@code blk_mq_complete_request} (irqmode
   *     1)
   * @param timers the timers to arm on the calling CPU, with when each fires (irqmode 2, and the
   *     requests the {@code timeout} fault injection picked)
   * @param raised requests put on the calling CPU's {@code blk_cpu_done}, BLOCK_SOFTIRQ raised at
   *     {@code atPs} (irqmode 1 on one hardware queue)
   * @param busy requests the {@code requeue} fault injection answered {@code BLK_STS_RESOURCE}
   * @param requeued requests it handed to {@code blk_mq_requeue_request}
   */
  public record QueueRqDone(
      long atPs,
      List<Request> onPollList,
      List<Request> completed,
      boolean viaCompleteRequest,
      List<NullBlk.Timer> timers,
      List<Request> raised,
      List<Request> busy,
      List<Request> requeued) {}

  /**
   * What {@link #nullPoll} found.
   *
   * @param atPs when it returned: the caller's time spent, its {@code poll_lock} wait included
   * @param found the requests of the poll list, completed, in the order queued
   */
  public record PollDone(long atPs, List<Request> found) {}

  /**
   * What an {@code end_cmd} path did: {@link #timersExpired} or {@link #nullCompleteRq}.
   *
   * @param atPs when it returned: {@code blk_mq_end_request} of {@code rqs} is next
   * @param rqs the requests ended
   * @param timedOut how many of them {@code null_timeout_rq} ended with {@code BLK_STS_TIMEOUT}
   */
  public record EndCmdDone(long atPs, List<Request> rqs, int timedOut) {}

  private final NullBlk nullb;
  private final Charger charger;
  private final CostStep lockLine;

  /** The operations of {@code nullb}, priced by {@code costs}, in a ledger of the device's name. */
  public NullMqOps(NullBlk nullb, PathCosts costs) {
    this.nullb = nullb;
    this.charger = new Charger(costs, nullb.diskName());
    this.lockLine = new CostStep(Contention.LINE_POLL_LOCK, costs.lineTransferPs());
  }

  /**
   * {@code null_queue_rq} of each request of {@code rqs}, started, on hardware queue {@code hctx},
   * by {@code cpu} from {@code atPs} ({@link NullBlk#queueRqs}): each {@code poll_lock} wait and
   * line is charged first, then every call, then, for the requests raised, {@code
   * blk_mq_complete_request} → {@code blk_mq_raise_softirq}.
   */
  public QueueRqDone nullQueueRq(int hctx, List<Request> rqs, int cpu, CpuTime what, long atPs) {
    long perRq = charger.costs().callPs(KernelFn.NULL_QUEUE_RQ);
    NullBlk.QueueBatch b = nullb.queueRqs(hctx, rqs, cpu, atPs, perRq);
    for (SpinLock.Acquired a : b.locks()) {
      chargePollLock(cpu, what, a);
    }
    long t = atPs + b.lockedPs() + charger.charge(cpu, what, KernelFn.NULL_QUEUE_RQ, rqs.size());
    if (!b.raised().isEmpty()) {
      // blk_mq_complete_request → blk_mq_raise_softirq: onto this CPU's list, BLOCK_SOFTIRQ raised
      t += charger.charge(cpu, what, RAISE_PATH, b.raised().size());
    }
    return new QueueRqDone(
        t,
        b.onPollList(),
        b.completed(),
        b.viaCompleteRequest(),
        b.timers(),
        b.raised(),
        b.busy(),
        b.requeued());
  }

  /**
   * {@code null_poll} of hardware queue {@code hctx} by {@code cpu} at {@code atPs} ({@link
   * NullBlk#pollQueue}): the {@code poll_lock} wait and line, then one call's work per request
   * found.
   */
  public PollDone nullPoll(int hctx, int cpu, CpuTime what, long atPs) {
    NullBlk.PollResult p = nullb.pollQueue(hctx, cpu, atPs);
    long locked = chargePollLock(cpu, what, p.lock());
    long t = atPs + locked + charger.charge(cpu, what, KernelFn.NULL_POLL, p.found().size());
    return new PollDone(t, p.found());
  }

  /**
   * The timers of {@code rqs} expired on {@code cpu} at {@code atPs}, a hard interrupt there
   * ({@link NullBlk#timerExpired}): {@code null_cmd_timer_expired} → {@code end_cmd} of each whose
   * hrtimer it was, then {@code null_timeout_rq} of each the {@code timeout} fault injection
   * picked.
   */
  public EndCmdDone timersExpired(List<Request> rqs, int cpu, CpuTime what, long atPs) {
    int timedOut = 0;
    for (Request rq : rqs) {
      timedOut += nullb.timerExpired(rq) ? 1 : 0;
    }
    long t =
        atPs
            + charger.charge(cpu, what, KernelFn.NULL_TIMER_FN, rqs.size() - timedOut)
            + charger.charge(cpu, what, KernelFn.NULL_TIMEOUT_RQ, timedOut);
    return new EndCmdDone(t, rqs, timedOut);
  }

  /**
   * {@code blk_done_softirq} on {@code cpu} at {@code atPs} ran {@code rqs}: each one's {@code
   * ->complete}, {@code null_complete_rq} → {@code end_cmd} ({@link NullBlk#softirqCompleted}).
   */
  public EndCmdDone nullCompleteRq(List<Request> rqs, int cpu, CpuTime what, long atPs) {
    for (Request rq : rqs) {
      nullb.softirqCompleted(rq);
    }
    long t = atPs + charger.charge(cpu, what, KernelFn.NULL_COMPLETE_RQ, rqs.size());
    return new EndCmdDone(t, rqs, 0);
  }

  /**
   * Charges {@code cpu} the spin ({@code [lock wait] null_blk poll_lock}) and the line's transfer
   * of a {@code poll_lock} acquisition; returns their time.
   */
  private long chargePollLock(int cpu, CpuTime what, SpinLock.Acquired a) {
    return charger.lock(cpu, what, a, Contention.LOCK_WAIT_POLL_LOCK, lockLine);
  }

  public NullBlk nullBlk() {
    return nullb;
  }

  /** What the device's operations charged, by CPU. */
  public CostLedger ledger() {
    return charger.ledger();
  }
}

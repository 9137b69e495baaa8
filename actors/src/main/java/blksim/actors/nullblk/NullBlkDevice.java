package blksim.actors.nullblk;

import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Charger;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.devices.nullblk.NullBlk;
import blksim.queues.blkmq.Request;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.time.SpinLock;
import java.util.ArrayList;
import java.util.List;

/**
 * The actor of a null_blk device ({@link NullBlk}): the driver side of its hardware queues, {@code
 * null_queue_rq} and {@code null_poll}. The work is charged to the CPU whose call it is.
 */
public final class NullBlkDevice extends AbstractComponent<NullBlkDevice.Command> {

  /** Everything the device understands. */
  public sealed interface Command extends SimMessage permits QueueRqs, PollQueue, TimersExpired {}

  /** The interrupts null_blk raises on a CPU; the CPU receives them through an adapter. */
  public sealed interface Interrupt extends SimMessage permits TimerFired {}

  /**
   * A null_blk hrtimer armed on a CPU (irqmode=2) expired: a hard interrupt there.
   *
   * @param hctx this request's hardware queue in the flat list of every device's queues
   * @param hctxIndex its index within its device
   */
  public record TimerFired(long atPs, SimRef<Command> device, int hctx, int hctxIndex, Request rq)
      implements Interrupt {}

  /**
   * Whose execution a call is: the device charges CPU {@code cpu} for {@code what}, and arms its
   * timers there.
   *
   * @param interrupts where that CPU takes the device's interrupts, or null for a caller that only
   *     polls
   */
  public record Exec(int cpu, CpuTime what, SimRef<Interrupt> interrupts) {}

  /** {@code queue_rq} of each request, started, on hardware queue {@code hctx}. */
  public record QueueRqs(long atPs, int hctx, List<Request> rqs, Exec exec) implements Command {}

  /** {@code null_poll} of hardware queue {@code hctx}. */
  public record PollQueue(long atPs, int hctx, Exec exec) implements Command {}

  /**
   * The hrtimers of {@code rqs} expired on the calling CPU (a hard interrupt there): {@code
   * null_cmd_timer_expired}, then {@code end_cmd} on hardware queue {@code hctx}.
   */
  public record TimersExpired(long atPs, Exec exec, int hctx, List<Request> rqs)
      implements Command {}

  /**
   * What the driver answers a hardware queue; the queue receives it through an adapter, on the
   * address the device was given for that queue.
   */
  public sealed interface Reply extends SimMessage permits Queued, PolledRqs, TimersEnded {}

  /**
   * The driver queued {@code count} requests and completed {@code completed} of them at once,
   * through {@code blk_mq_complete_request} if {@code viaCompleteRequest}.
   */
  public record Queued(
      long atPs, Exec exec, int count, List<Request> completed, boolean viaCompleteRequest)
      implements Reply {}

  /** The driver's poll found {@code rqs}, completed. */
  public record PolledRqs(long atPs, Exec exec, List<Request> rqs) implements Reply {}

  /** {@code end_cmd} of requests whose timers expired: {@code blk_mq_end_request} is next. */
  public record TimersEnded(long atPs, Exec exec, List<Request> rqs) implements Reply {}

  private final NullBlk nullb;
  private final SimRef<Command> self;
  private final List<SimRef<Reply>> hctxRefs;
  private final Charger charger;
  private final long completionPs;
  private final SpinLock[] pollLocks;
  private final long lockHoldPs;
  private final long lineTransferPs;
  private final CostStep lockLine;

  /**
   * @param hctxRefs where each of this device's hardware queues takes the driver's answers, by
   *     index
   * @param flatOffset index of hardware queue 0 in the flat list of every device's queues
   */
  public NullBlkDevice(
      NullBlk nullb,
      SimRef<Command> self,
      List<SimRef<Reply>> hctxRefs,
      int flatOffset,
      PathCosts costs) {
    super(nullb.diskName(), Command.class);
    this.nullb = nullb;
    this.self = self;
    this.hctxRefs = List.copyOf(hctxRefs);
    this.flatOffset = flatOffset;
    this.charger = new Charger(costs);
    this.completionPs = nullb.settings().completionNsec() * 1000;
    this.pollLocks = new SpinLock[nullb.nrHwQueues()];
    for (int h = 0; h < pollLocks.length; h++) {
      pollLocks[h] = new SpinLock(nullb.diskName() + "-hctx" + h + " poll_lock");
    }
    this.lockHoldPs = costs.shortLockHoldPs();
    this.lineTransferPs = costs.lineTransferPs();
    this.lockLine = new CostStep("[line from another CPU] null_blk poll_lock", lineTransferPs);
  }

  private final int flatOffset;

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(QueueRqs.class, this::onQueueRqs)
        .on(PollQueue.class, this::onPollQueue)
        .on(TimersExpired.class, this::onTimersExpired)
        .build();
  }

  private void onQueueRqs(QueueRqs m, Outbox out) {
    List<Request> completed = new ArrayList<>(0);
    boolean viaCompleteRequest = false;
    long perRq = charger.costs().step(KernelFn.NULL_QUEUE_RQ).ps();
    long locked = 0;
    for (int i = 0; i < m.rqs().size(); i++) {
      Request rq = m.rqs().get(i);
      NullBlk.Queued q = nullb.queueRq(m.hctx(), rq);
      if (q == NullBlk.Queued.ON_POLL_LIST) {
        // null_queue_rq adds to poll_list under nq->poll_lock
        locked += takeLock(m.exec(), m.hctx(), m.atPs() + i * perRq + locked);
      }
      if (q == NullBlk.Queued.TIMER) {
        // hrtimer_start in queue_rq: the timer is this CPU's, and fires completion_nsec later.
        if (m.exec().interrupts() == null) {
          throw new InvariantBroken(
              name() + ": a timer armed for a caller that takes no interrupts: " + m.exec());
        }
        out.send(
            m.exec().interrupts(),
            new TimerFired(
                m.atPs() + (i + 1) * perRq + completionPs,
                self,
                flatOffset + m.hctx(),
                m.hctx(),
                rq));
      } else if (q != NullBlk.Queued.ON_POLL_LIST) {
        completed.add(rq);
        viaCompleteRequest |= q == NullBlk.Queued.COMPLETE_REQUEST;
      }
    }
    long t =
        m.atPs()
            + locked
            + charger.charge(
                m.exec().cpu(), m.exec().what(), KernelFn.NULL_QUEUE_RQ, m.rqs().size());
    out.send(
        hctxRefs.get(m.hctx()),
        new Queued(t, m.exec(), m.rqs().size(), completed, viaCompleteRequest));
  }

  private void onPollQueue(PollQueue m, Outbox out) {
    List<Request> found = new ArrayList<>();
    // null_poll splices poll_list under nq->poll_lock
    long locked = takeLock(m.exec(), m.hctx(), m.atPs());
    int n = nullb.poll(m.hctx(), found);
    long t =
        m.atPs() + locked + charger.charge(m.exec().cpu(), m.exec().what(), KernelFn.NULL_POLL, n);
    out.send(hctxRefs.get(m.hctx()), new PolledRqs(t, m.exec(), found));
  }

  /**
   * {@code spin_lock(&nq->poll_lock)} at {@code atPs}: charges the spin and the line's transfer to
   * the caller; returns the time they took.
   */
  private long takeLock(Exec call, int hctx, long atPs) {
    SpinLock.Acquired a = pollLocks[hctx].acquire(call.cpu(), atPs, lockHoldPs, lineTransferPs);
    long ps = 0;
    if (a.waitPs() > 0) {
      ps +=
          charger.charge(
              call.cpu(),
              CpuTime.LOCK_WAIT,
              new CostStep("[lock wait] null_blk poll_lock", a.waitPs()),
              1);
    }
    if (a.transferPs() > 0) {
      ps += charger.charge(call.cpu(), call.what(), lockLine, 1);
    }
    return ps;
  }

  private void onTimersExpired(TimersExpired m, Outbox out) {
    for (Request rq : m.rqs()) {
      nullb.timerExpired(rq);
    }
    long t =
        m.atPs()
            + charger.charge(
                m.exec().cpu(), m.exec().what(), KernelFn.NULL_TIMER_FN, m.rqs().size());
    out.send(hctxRefs.get(m.hctx()), new TimersEnded(t, m.exec(), m.rqs()));
  }

  public NullBlk nullBlk() {
    return nullb;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }
}

package blksim.actors.drivers.null_blk;

import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.devices.drivers.null_blk.NullBlk;
import blksim.devices.drivers.null_blk.NullMqOps;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.PathCosts;
import java.util.List;

/**
 * The actor of a null_blk device ({@link NullBlk}): the driver side of its hardware queues. Each
 * command is one of null_blk's operations ({@link NullMqOps}: {@code null_queue_rq}, {@code
 * null_poll}, the timer and {@code null_complete_rq}), charged to the CPU whose call it is; the
 * actor sends what the operation returned: the timers and softirqs to that CPU, the answer to the
 * hardware queue.
 */
public final class NullBlkActor extends AbstractComponent<NullBlkActor.Command> {

  /** Everything the device understands. */
  public sealed interface Command extends SimMessage
      permits QueueRqs, PollQueue, TimersExpired, CompleteRqs {}

  /**
   * The interrupts null_blk raises on a CPU, hard or soft; the CPU receives them through an
   * adapter.
   */
  public sealed interface Interrupt extends SimMessage permits TimerFired, SoftirqRaised {
    /** The device whose requests it ends. */
    SimRef<Command> device();

    /** The index of their hardware queue in the device. */
    int hctx();

    /** The requests it ends. */
    List<Request> rqs();
  }

  /**
   * A null_blk hrtimer armed on a CPU (irqmode=2) expired: a hard interrupt there.
   *
   * @param hctx the index of this request's hardware queue in its device
   */
  public record TimerFired(long atPs, SimRef<Command> device, int hctx, Request rq)
      implements Interrupt {
    @Override
    public List<Request> rqs() {
      return List.of(rq);
    }
  }

  /**
   * {@code queue_rq} on a CPU put {@code rqs} on its {@code blk_cpu_done} (irqmode=1 on a tag set
   * of one hardware queue: {@code blk_mq_raise_softirq}). From task context this wakes the CPU's
   * ksoftirqd, which runs BLOCK_SOFTIRQ at the CPU's next scheduling point.
   */
  public record SoftirqRaised(long atPs, SimRef<Command> device, int hctx, List<Request> rqs)
      implements Interrupt {}

  /**
   * Whose execution a call is: the device charges CPU {@code cpu} for {@code what}, and arms its
   * timers there; the answer goes back to the task in {@code slot} there.
   *
   * @param slot the calling task's place on the CPU ({@link
   *     blksim.actors.block.BlockDevice.Call#slot})
   * @param interrupts where that CPU takes the device's interrupts, or null for a caller that only
   *     polls
   */
  public record Exec(int cpu, int slot, CpuTime what, SimRef<Interrupt> interrupts) {}

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
   * {@code blk_done_softirq} on the calling CPU ran {@code rqs}, raised there on hardware queue
   * {@code hctx}: each one's {@code ->complete}, {@code null_complete_rq} → {@code end_cmd}.
   */
  public record CompleteRqs(long atPs, Exec exec, int hctx, List<Request> rqs) implements Command {}

  /**
   * What the driver answers a hardware queue; the queue receives it through an adapter, on the
   * address the device was given for that queue.
   */
  public sealed interface Reply extends SimMessage permits Queued, PolledRqs, TimersEnded {
    /** Whose execution the answer carries. */
    Exec exec();
  }

  /**
   * The driver queued {@code count} requests and completed {@code completed} of them at once,
   * through {@code blk_mq_complete_request} if {@code viaCompleteRequest}; it turned away {@code
   * busy} ({@code BLK_STS_RESOURCE}) and {@code requeued} ({@code blk_mq_requeue_request}), by its
   * {@code requeue} fault injection.
   */
  public record Queued(
      long atPs,
      Exec exec,
      int count,
      List<Request> completed,
      boolean viaCompleteRequest,
      List<Request> busy,
      List<Request> requeued)
      implements Reply {

    /** A queueing with nothing turned away. */
    public Queued(
        long atPs, Exec exec, int count, List<Request> completed, boolean viaCompleteRequest) {
      this(atPs, exec, count, completed, viaCompleteRequest, List.of(), List.of());
    }
  }

  /** The driver's poll found {@code rqs}, completed. */
  public record PolledRqs(long atPs, Exec exec, List<Request> rqs) implements Reply {}

  /**
   * {@code end_cmd} of requests whose timers expired, or whose BLOCK_SOFTIRQ ran: {@code
   * blk_mq_end_request} is next.
   */
  public record TimersEnded(long atPs, Exec exec, List<Request> rqs) implements Reply {}

  private final NullMqOps ops;
  private final SimRef<Command> self;
  private final List<SimRef<Reply>> hctxRefs;

  /**
   * @param hctxRefs where each of this device's hardware queues takes the driver's answers, by
   *     index
   */
  public NullBlkActor(
      NullBlk nullb, SimRef<Command> self, List<SimRef<Reply>> hctxRefs, PathCosts costs) {
    super(nullb.diskName(), Command.class);
    this.ops = new NullMqOps(nullb, costs);
    this.self = self;
    this.hctxRefs = List.copyOf(hctxRefs);
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(QueueRqs.class, this::onQueueRqs)
        .on(PollQueue.class, this::onPollQueue)
        .on(TimersExpired.class, this::onTimersExpired)
        .on(CompleteRqs.class, this::onCompleteRqs)
        .build();
  }

  private void onQueueRqs(QueueRqs m, Outbox out) {
    Exec e = m.exec();
    NullMqOps.QueueRqDone d = ops.nullQueueRq(m.hctx(), m.rqs(), e.cpu(), e.what(), m.atPs());
    if ((!d.timers().isEmpty() || !d.raised().isEmpty()) && e.interrupts() == null) {
      throw new InvariantBroken(
          name() + ": a timer armed for a caller that takes no interrupts: " + e);
    }
    for (NullBlk.Timer timer : d.timers()) {
      // hrtimer_start in queue_rq: the timer is this CPU's, and fires completion_nsec later.
      out.send(e.interrupts(), new TimerFired(timer.firesAtPs(), self, m.hctx(), timer.rq()));
    }
    if (!d.raised().isEmpty()) {
      out.send(e.interrupts(), new SoftirqRaised(d.atPs(), self, m.hctx(), d.raised()));
    }
    out.send(
        hctxRefs.get(m.hctx()),
        new Queued(
            d.atPs(),
            e,
            m.rqs().size(),
            d.completed(),
            d.viaCompleteRequest(),
            d.busy(),
            d.requeued()));
  }

  private void onPollQueue(PollQueue m, Outbox out) {
    NullMqOps.PollDone p = ops.nullPoll(m.hctx(), m.exec().cpu(), m.exec().what(), m.atPs());
    out.send(hctxRefs.get(m.hctx()), new PolledRqs(p.atPs(), m.exec(), p.found()));
  }

  private void onTimersExpired(TimersExpired m, Outbox out) {
    NullMqOps.EndCmdDone d = ops.timersExpired(m.rqs(), m.exec().cpu(), m.exec().what(), m.atPs());
    out.send(hctxRefs.get(m.hctx()), new TimersEnded(d.atPs(), m.exec(), d.rqs()));
  }

  private void onCompleteRqs(CompleteRqs m, Outbox out) {
    NullMqOps.EndCmdDone d = ops.nullCompleteRq(m.rqs(), m.exec().cpu(), m.exec().what(), m.atPs());
    out.send(hctxRefs.get(m.hctx()), new TimersEnded(d.atPs(), m.exec(), d.rqs()));
  }

  public NullBlk nullBlk() {
    return ops.nullBlk();
  }

  public CostLedger ledger() {
    return ops.ledger();
  }
}

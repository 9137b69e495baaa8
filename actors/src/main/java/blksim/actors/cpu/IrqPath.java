package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.md.MappedDeviceActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.devices.drivers.md.DmIo;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.fops.BioEndio;
import blksim.queues.io_uring.ForeignCompletions;
import blksim.queues.kernel.sched.PendingTicks;
import blksim.queues.kernel.sched.SchedCore;
import blksim.queues.kernel.softirq.IrqContext;
import java.util.ArrayList;
import java.util.List;

/**
 * A hard interrupt on this CPU: {@code hrtimer_interrupt} runs every expired null_blk timer ({@code
 * null_cmd_timer_expired} → {@code end_cmd} → {@code blk_mq_end_request}), each bio's {@code
 * bi_end_io} queues io_uring task_work for the submitter and wakes it if it sleeps, and the bios go
 * back to their bio_set from interrupt context. Timers that expire while it runs are taken in the
 * same interrupt, as {@code __hrtimer_run_queues} does.
 *
 * <p>Each method returns the time the interrupt ends, or -1 while a call of it is out.
 */
final class IrqPath
    implements SchedCore.Irq<NullBlkActor.TimerFired, NullBlkActor.SoftirqRaised, Outbox> {
  private final ThisCpu c;

  /** The CPU's submitter threads, in slot order (its first slots). */
  private final List<SubmitterThread> threads;

  /** The context the interrupt's work runs in, its costs and its groups of requests. */
  private final IrqContext<NullBlkActor.Interrupt> context;

  /** A hardware queue of a device, and whether its requests were raised or timed. */
  private record Queue(SimRef<NullBlkActor.Command> device, int hctx, boolean softirq) {}

  IrqPath(ThisCpu c, List<SubmitterThread> threads) {
    this.c = c;
    this.threads = threads;
    this.context =
        new IrqContext<>(
            c.charger,
            c.index,
            f -> new Queue(f.device(), f.hctx(), f instanceof NullBlkActor.SoftirqRaised));
  }

  /**
   * A hard interrupt begins at {@code t} ({@link IrqContext#enter}): the scheduler ticks that
   * waited, then null_blk's timers, one hardware queue's after another.
   */
  @Override
  public long start(
      long t, List<NullBlkActor.TimerFired> fired, PendingTicks.Ticks ticks, Outbox out) {
    return next(context.enter(t, ticks, fired), out);
  }

  /** More expired timers, in the interrupt that runs. */
  @Override
  public long more(long t, List<NullBlkActor.TimerFired> fired, Outbox out) {
    context.more(fired);
    return next(t, out);
  }

  /** ksoftirqd runs BLOCK_SOFTIRQ at {@code t} ({@link IrqContext#softirq}). */
  @Override
  public long startSoftirq(
      long t, List<NullBlkActor.SoftirqRaised> raised, boolean preempts, Outbox out) {
    return next(context.softirq(t, raised, preempts), out);
  }

  /** More requests raised while BLOCK_SOFTIRQ ran ({@link IrqContext#moreSoftirq}). */
  @Override
  public long moreSoftirq(long t, List<NullBlkActor.SoftirqRaised> raised, Outbox out) {
    return next(context.moreSoftirq(t, raised), out);
  }

  /** ksoftirqd, done, switches back to the task it preempted. */
  @Override
  public long softirqSwitchBack(long t) {
    return context.switchBack(t);
  }

  /** Whether the running interrupt is ksoftirqd's. */
  @Override
  public boolean inSoftirq() {
    return context.inSoftirq();
  }

  /**
   * Asks the device of the next group to end its requests, on behalf of the running context: {@code
   * null_cmd_timer_expired} of the timers, or {@code null_complete_rq} of the raised requests.
   *
   * @return -1 while it does, or {@code t} when no group is left: the interrupt ends
   */
  private long next(long t, Outbox out) {
    List<NullBlkActor.Interrupt> g = context.nextGroup();
    if (g == null) {
      return t;
    }
    List<Request> rqs = new ArrayList<>(g.size());
    for (NullBlkActor.Interrupt f : g) {
      rqs.addAll(f.rqs());
    }
    NullBlkActor.Interrupt first = g.get(0);
    NullBlkActor.Exec exec = c.irqCall(context.what()).exec();
    out.send(
        first.device(),
        first instanceof NullBlkActor.SoftirqRaised
            ? new NullBlkActor.CompleteRqs(t, exec, first.hctx(), rqs)
            : new NullBlkActor.TimersExpired(t, exec, first.hctx(), rqs));
    return -1;
  }

  /** bio_endio of each bio: io_complete_rw queues task_work (and wakes the thread); bio_put. */
  long onIrqEnded(BlockDevice.IrqEnded m, Outbox out) {
    if (!m.ended().isEmpty() && m.ended().get(0).owner() instanceof DmIo io) {
      // bio_endio of a DM clone runs clone_endio, in this interrupt: the device's, then back here.
      out.send(
          c.dms.get(io.md().name()),
          new MappedDeviceActor.EndClones(m.atPs(), c.irqCall(context.what()), m.ended()));
      return -1;
    }
    context.groupEnded();
    BioEndio.IrqEnd end =
        c.bioEndio(context.what(), new ForeignCompletions())
            .irqEnded(m.atPs(), m.ended(), c.remoteCompletion);
    c.send(end.told(), out);
    long t = end.atPs();
    List<Bio> put = end.put();
    if (put.isEmpty()) {
      // a sync read's bio lives on its task's stack: nothing goes back to a bio_set
      return onBiosPut(t, out);
    }
    out.send(
        c.bioset, new BioSetActor.PutBios(t, c.index, context.what(), put, c.irqBiosetReplies));
    return -1;
  }

  /** The interrupt's bios are back in their bio_set at {@code t}: the next group, if any. */
  long onBiosPut(long t, Outbox out) {
    for (SubmitterThread thread : threads) {
      thread.path.irqEnded();
    }
    return next(t, out);
  }
}

package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.IoKiocb;
import java.util.ArrayList;
import java.util.List;

/**
 * A hard interrupt on an io-wq worker's CPU: the null_blk timers (irqmode=2) of the requests the
 * worker queued fire there, as {@code hrtimer_start} arms them on the CPU that runs {@code
 * queue_rq}. Each bio's {@code bi_end_io} ({@code io_complete_rw}) queues task_work for the
 * submitter, whose ring the request is of ({@link Cpu.CompletedElsewhere}); the bios go back to
 * their bio_set from interrupt context.
 *
 * <p>Each method returns the time the interrupt ends, or -1 while a call of it is out.
 */
final class WorkerIrq {
  private final int index;
  private final Charger charger;
  private final SimRef<BioSetActor.Command> bioset;
  private final SimRef<BioSetActor.Reply> biosetReplies;
  private final SimRef<NullBlkActor.Interrupt> interrupts;
  private final TimerGroups groups = new TimerGroups();
  private final boolean iopoll;
  private SimRef<Cpu.Command> owner;

  /** The context the running interrupt's work is in: a hard interrupt, or ksoftirqd. */
  private CpuTime what = CpuTime.IRQ;

  WorkerIrq(
      int index,
      Charger charger,
      SimRef<BioSetActor.Command> bioset,
      SimRef<BioSetActor.Reply> biosetReplies,
      SimRef<NullBlkActor.Interrupt> interrupts,
      boolean iopoll) {
    this.index = index;
    this.iopoll = iopoll;
    this.charger = charger;
    this.bioset = bioset;
    this.biosetReplies = biosetReplies;
    this.interrupts = interrupts;
  }

  void owner(SimRef<Cpu.Command> owner) {
    this.owner = owner;
  }

  /**
   * The interrupt begins at {@code t}: entry and hrtimer_interrupt, then the expired timers. Or,
   * for requests the worker's queue_rq raised BLOCK_SOFTIRQ for, ksoftirqd: woken then, it runs at
   * the worker's next scheduling point (a {@code might_sleep} in its next issue, or its sleep), and
   * switches back to a worker it preempted ({@code preempts}).
   */
  long start(long t, List<NullBlkActor.Interrupt> fired, boolean preempts, Outbox out) {
    long timers = fired.stream().filter(f -> f instanceof NullBlkActor.TimerFired).count();
    what = timers > 0 ? CpuTime.IRQ : CpuTime.KSOFTIRQD;
    if (timers > 0) {
      t += charger.charge(index, CpuTime.IRQ, CpuPaths.IRQ_ENTRY_PATH, 1);
    }
    if (timers < fired.size()) {
      t += charger.charge(index, CpuTime.SUBMIT, CpuPaths.WAKE_KSOFTIRQD_PATH, 1);
      t += charger.charge(index, CpuTime.KSOFTIRQD, CpuPaths.BLOCK_SOFTIRQ_PATH, 1);
      t += preempts ? charger.charge(index, CpuTime.KSOFTIRQD, KernelFn.SCHEDULE, 2) : 0;
    }
    return more(t, fired, out);
  }

  /** More of them, in the interrupt that runs. */
  long more(long t, List<NullBlkActor.Interrupt> fired, Outbox out) {
    groups.add(fired);
    return next(t, out);
  }

  private long next(long t, Outbox out) {
    NullBlkActor.Exec exec = new NullBlkActor.Exec(index, BlockDevice.Call.IRQ, what, interrupts);
    return groups.sendNext(t, exec, out) ? -1 : t;
  }

  /** bio_endio of each bio: task_work for the submitter; bio_put. */
  long onIrqEnded(BlockDevice.IrqEnded m, Outbox out) {
    groups.ended();
    long t = m.atPs();
    List<Cpu.Completion> done = new ArrayList<>(m.ended().size());
    for (Bio bio : m.ended()) {
      // bi_end_io: io_complete_rw_iopoll on an IOPOLL ring, else io_complete_rw's task_work
      t += charger.charge(index, what, iopoll ? CpuPaths.END_IO_PATH : CpuPaths.IRQ_END_PATH, 1);
      done.add(new Cpu.Completion((IoKiocb) bio.owner(), CpuCore.res(bio)));
    }
    out.send(owner, new Cpu.CompletedElsewhere(t, done));
    out.send(bioset, new BioSetActor.PutBios(t, index, what, m.ended(), biosetReplies));
    return -1;
  }

  long onBiosPut(long t, Outbox out) {
    return next(t, out);
  }
}

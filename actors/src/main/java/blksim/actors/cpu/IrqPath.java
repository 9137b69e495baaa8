package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.md.MappedDeviceActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.devices.drivers.md.DmIo;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.fops.BlkdevDirectIoSimple;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.fs.aio.AioKiocb;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.kernel.sched.PendingTicks;
import blksim.queues.kernel.sched.SchedCore;
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
  /** A hard interrupt's entry and exit, and the hrtimer interrupt handler, per interrupt. */
  static final KernelFn[] IRQ_ENTRY_PATH = {KernelFn.IRQ_ENTRY, KernelFn.HRTIMER_INTERRUPT};

  /** The scheduler tick's own work, in a timer interrupt already entered. */
  static final KernelFn[] TICK_PATH = {KernelFn.TICK_SCHED_TIMER};

  /** SCHED_SOFTIRQ at the tick's irq_exit: the periodic load balance. */
  static final KernelFn[] LOAD_BALANCE_PATH = {KernelFn.RUN_REBALANCE_DOMAINS};

  /** The vmstat kworker, woken by its timer in the tick, preempting the thread at irq_exit. */
  static final KernelFn[] VMSTAT_PATH = {KernelFn.VMSTAT_UPDATE};

  /**
   * The raiser's part of a BLOCK_SOFTIRQ run, once per ksoftirqd wake: the first request on the
   * empty list raised the softirq from task context, which woke ksoftirqd.
   */
  static final KernelFn[] WAKE_KSOFTIRQD_PATH = {KernelFn.RAISE_SOFTIRQ, KernelFn.TRY_TO_WAKE_UP};

  /** ksoftirqd's pass over the pending softirqs, and BLOCK_SOFTIRQ's taking of the CPU's list. */
  static final KernelFn[] BLOCK_SOFTIRQ_PATH = {KernelFn.RUN_KSOFTIRQD, KernelFn.BLK_DONE_SOFTIRQ};

  private final ThisCpu c;

  /** The CPU's submitter threads, in slot order (its first slots). */
  private final List<SubmitterThread> threads;

  private final TimerGroups groups = new TimerGroups();

  /** The context the running interrupt's work is in: a hard interrupt, or ksoftirqd. */
  private CpuTime what = CpuTime.IRQ;

  IrqPath(ThisCpu c, List<SubmitterThread> threads) {
    this.c = c;
    this.threads = threads;
  }

  /**
   * A hard interrupt begins at {@code t}: entry, hrtimer_interrupt, the scheduler tick if its timer
   * expired ({@code ticks}) and the SCHED_SOFTIRQs they raised (run at irq_exit), the vmstat
   * kworker their timers woke (it preempts the thread as the interrupt returns), then null_blk's
   * timers.
   */
  @Override
  public long start(
      long t, List<NullBlkActor.TimerFired> fired, PendingTicks.Ticks ticks, Outbox out) {
    what = CpuTime.IRQ;
    t += c.charge(CpuTime.IRQ, IRQ_ENTRY_PATH, 1);
    if (ticks.ticks() > 0) {
      t += c.charge(CpuTime.IRQ, TICK_PATH, ticks.ticks());
    }
    if (ticks.balances() > 0) {
      t += c.charge(CpuTime.IRQ, LOAD_BALANCE_PATH, ticks.balances());
    }
    if (ticks.vmstats() > 0) {
      t += c.charge(CpuTime.KWORKER, VMSTAT_PATH, ticks.vmstats());
    }
    return more(t, fired, out);
  }

  /** More expired timers, in the interrupt that runs. */
  @Override
  public long more(long t, List<NullBlkActor.TimerFired> fired, Outbox out) {
    groups.add(fired);
    return next(t, out);
  }

  /**
   * ksoftirqd runs BLOCK_SOFTIRQ at {@code t}, a scheduling point of the thread: the raiser's wake
   * of it, the switch to it when it preempts the thread (a thread that goes to sleep has paid for
   * that switch), its pass and {@code blk_done_softirq}, then the requests of each queue raised.
   */
  @Override
  public long startSoftirq(
      long t, List<NullBlkActor.SoftirqRaised> raised, boolean preempts, Outbox out) {
    what = CpuTime.KSOFTIRQD;
    t += c.charge(CpuTime.SUBMIT, WAKE_KSOFTIRQD_PATH, 1);
    if (preempts) {
      t += c.charge(CpuTime.KSOFTIRQD, KernelFn.SCHEDULE, 1);
    }
    return moreSoftirq(t, raised, out);
  }

  /**
   * More requests raised while BLOCK_SOFTIRQ ran (by a kblockd run its frees restarted): {@code
   * __do_softirq} finds the softirq pending again and runs it once more.
   */
  @Override
  public long moreSoftirq(long t, List<NullBlkActor.SoftirqRaised> raised, Outbox out) {
    t += c.charge(CpuTime.KSOFTIRQD, BLOCK_SOFTIRQ_PATH, 1);
    groups.add(raised);
    return next(t, out);
  }

  /** ksoftirqd, done, switches back to the thread it preempted. */
  @Override
  public long softirqSwitchBack(long t) {
    return t + c.charge(CpuTime.KSOFTIRQD, KernelFn.SCHEDULE, 1);
  }

  /** Whether the running interrupt is ksoftirqd's. */
  @Override
  public boolean inSoftirq() {
    return what == CpuTime.KSOFTIRQD;
  }

  private long next(long t, Outbox out) {
    return groups.sendNext(t, c.irqCall(what).exec(), out) ? -1 : t;
  }

  /** bio_endio of each bio: io_complete_rw queues task_work (and wakes the thread); bio_put. */
  long onIrqEnded(BlockDevice.IrqEnded m, Outbox out) {
    if (!m.ended().isEmpty() && m.ended().get(0).owner() instanceof DmIo io) {
      // bio_endio of a DM clone runs clone_endio, in this interrupt: the device's, then back here.
      out.send(
          c.dms.get(io.md().name()),
          new MappedDeviceActor.EndClones(m.atPs(), c.irqCall(what), m.ended()));
      return -1;
    }
    groups.ended();
    long t = m.atPs();
    List<Bio> put = new ArrayList<>();
    ThisCpu.Elsewhere elsewhere = new ThisCpu.Elsewhere();
    boolean[] touched = new boolean[threads.size()];
    if (threads.size() == 1) {
      touched[0] = true; // a CPU's only thread is looked at whatever ended, as always
    }
    for (Bio bio : m.ended()) {
      if (c.foreign(bio)) {
        elsewhere.add((IoKiocb) bio.owner(), CpuCore.res(bio));
        t += c.charge(what, c.foreignEndPath(), 1);
      } else {
        if (bio.owner() instanceof BlkdevDirectIoSimple.Waiter w) {
          touched[c.taskOf(w.owner()).slot] = true; // blkdev_bio_end_io_simple wakes its task
        } else if (bio.owner() instanceof AioKiocb req) {
          touched[c.taskOf(req.ctx()).slot] = true;
        }
        t += c.charge(what, c.endInIrq(bio), 1);
        if (bio.owner() instanceof IoKiocb req) {
          CpuCore owner = c.taskOf(req);
          threads.get(owner.slot).path.workerCompleted(req);
          touched[owner.slot] = true;
        }
      }
      if (bio.pool() != null) {
        put.add(bio);
      }
    }
    t = elsewhere.send(c, t, what, out);
    // io_complete_rw's task_work wakes each task whose request ended, if it sleeps
    for (int slot = 0; slot < touched.length; slot++) {
      if (touched[slot] && threads.get(slot).path.loop().wakeIfSleeping()) {
        t += c.charge(what, KernelFn.TRY_TO_WAKE_UP, 1);
      }
    }
    if (put.isEmpty()) {
      // a sync read's bio lives on its task's stack: nothing goes back to a bio_set
      return onBiosPut(t, out);
    }
    out.send(c.bioset, new BioSetActor.PutBios(t, c.index, what, put, c.irqBiosetReplies));
    return -1;
  }

  long onBiosPut(long t, Outbox out) {
    for (SubmitterThread thread : threads) {
      if (thread.exiting()) {
        thread.core.ring.dropTaskWorkAtExit();
      }
    }
    return next(t, out);
  }
}

package blksim.actors.cpu;

import blksim.actors.bioset.BioSetCache;
import blksim.actors.block.BlockDevice;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.nullblk.NullBlkDevice;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * What a CPU runs next: its thread's next step, a hard interrupt (null_blk's timers, the tick)
 * taken at the thread's next step boundary or at once on an idle CPU, ksoftirqd, which runs where
 * the thread schedules ({@link Ksoftirqd}), or the thread's io-wq worker when it has no CPU of its
 * own ({@link HostCpu}): where the thread schedules, or when the CPU is idle. The thread's step
 * that waited goes on when the other is over. Interrupts are the CPU's, whoever issued the request.
 */
final class CpuSchedule {
  private final CpuCore core;
  private final SubmitterPath thread;
  private final ThreadLoop run;
  private final IrqPath irq;
  private final Ksoftirqd ksoftirqd;
  private final ArrayDeque<NullBlkDevice.TimerFired> pendingIrqs = new ArrayDeque<>();
  private final PendingTicks pendingTicks = new PendingTicks();
  private SimMessage stashed;
  private boolean inIrq;

  /** The io-wq worker runs on this CPU now. */
  private boolean lent;

  /** When the CPU's last interrupt or worker run ended. */
  private long busyUntilPs;

  /** The worker sharing this CPU is runnable: woken for work or for a tag, or preempted. */
  private boolean workerWants;

  /** A preempted worker runs where the thread schedules from here: the thread's slice is over. */
  private long workerFromPs;

  CpuSchedule(CpuCore core, SubmitterPath thread, ThreadLoop run, IrqPath irq) {
    this.core = core;
    this.thread = thread;
    this.run = run;
    this.irq = irq;
    this.ksoftirqd = core.ksoftirqd;
  }

  /** The thread starts. */
  void pass(long t, Outbox out) {
    run.pass(t, out);
    idleSoftirq(t, out);
  }

  /** Another CPU's completion woke the sleeping thread: it runs, unless an interrupt does. */
  void wake(long t, Outbox out) {
    if (!inIrq && !lent) {
      run.wake(freeFrom(t), out);
      idleSoftirq(t, out);
    }
  }

  /** Nothing pending, nothing running: no interrupt was left unhandled. */
  boolean idle() {
    return leftOver().isEmpty();
  }

  /** What is still pending or running on the CPU, for the books: empty when nothing is. */
  String leftOver() {
    List<String> left = new ArrayList<>();
    if (!pendingIrqs.isEmpty()) {
      left.add(pendingIrqs.size() + " timer interrupt(s) pending");
    }
    if (!pendingTicks.isEmpty()) {
      left.add("a tick pending");
    }
    if (inIrq) {
      left.add("in an interrupt");
    }
    if (ksoftirqd.pending()) {
      left.add("ksoftirqd runnable");
    }
    if (lent) {
      left.add("lent to the io-wq worker");
    }
    if (workerWants) {
      left.add("the io-wq worker runnable");
    }
    return String.join(", ", left);
  }

  void onBioSetReply(BioSetCache.Reply m, Outbox out) {
    if (m instanceof BioSetCache.Put put && inIrq) {
      irqReturned(irq.onBiosPut(put.atPs(), out), out);
    } else {
      onThreadReply(m, out);
    }
  }

  void onBlockReply(BlockDevice.Reply m, Outbox out) {
    if (m instanceof BlockDevice.IrqEnded ended) {
      irqReturned(irq.onIrqEnded(ended, out), out);
    } else if (m instanceof BlockDevice.Woken && (inIrq || lent)) {
      // this CPU's interrupt freed the tag: the woken thread runs when the interrupt is over
      stashed = m;
    } else if (m instanceof BlockDevice.Slept) {
      // the thread sleeps for a tag: the CPU is idle, and takes the interrupts that waited
      run.handle(m, out);
      if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
        inIrq = true;
        irqReturned(irq.start(freeFrom(m.atPs()), drainPending(), pendingTicks.drain(), out), out);
      } else {
        idleSoftirq(m.atPs(), out);
      }
    } else {
      onThreadReply(m, out);
    }
  }

  /** A step boundary of the thread: pending interrupts run first. */
  void onThreadReply(SimMessage m, Outbox out) {
    if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
      stashed = m;
      inIrq = true;
      irqReturned(irq.start(m.atPs(), drainPending(), pendingTicks.drain(), out), out);
      return;
    }
    threadStep(m, out);
  }

  /** The thread goes on with {@code m}; where it schedules, a runnable ksoftirqd runs first. */
  private void threadStep(SimMessage m, Outbox out) {
    if (workerWants && lendsAt(m)) {
      stashed = m;
      lend(m.atPs(), out);
      return;
    }
    if (ksoftirqd.pending() && Ksoftirqd.schedulesAt(m)) {
      stashed = m;
      inIrq = true;
      ksoftirqd.runs(true);
      irqReturned(irq.startSoftirq(m.atPs(), ksoftirqd.drain(), true, out), out);
      return;
    }
    run.handle(m, out);
    idleSoftirq(m.atPs(), out);
  }

  /**
   * The CPU may be idle (its thread asleep or ended): a runnable ksoftirqd runs now, else a
   * runnable io-wq worker that shares the CPU.
   */
  void idleSoftirq(long t, Outbox out) {
    if (!idleNow()) {
      return;
    }
    if (ksoftirqd.pending()) {
      inIrq = true;
      ksoftirqd.runs(false);
      irqReturned(irq.startSoftirq(freeFrom(t), ksoftirqd.drain(), false, out), out);
    } else if (workerWants) {
      lend(freeFrom(t), out);
    }
  }

  /**
   * When work that finds the CPU idle at {@code t} can start: after the thread went to sleep, and
   * after the last interrupt or worker run, whose end the CPU knew before it came.
   */
  private long freeFrom(long t) {
    return Math.max(t, Math.max(thread.freeAtPs(), busyUntilPs));
  }

  /** Nothing runs on the CPU: its thread sleeps or ended, and no interrupt or worker runs. */
  private boolean idleNow() {
    return !inIrq && !lent && stashed == null && !thread.inFlight();
  }

  /**
   * Whether the thread switches to its runnable worker at {@code m}: where it schedules, once a
   * preempted worker's wait for the thread's slice is over. On an IOPOLL ring only at the return to
   * user space: at io_iopoll_check's mutex_lock the thread still holds the uring_lock the worker
   * needs for its IOPOLL list.
   */
  private boolean lendsAt(SimMessage m) {
    return m.atPs() >= workerFromPs
        && (m instanceof Cpu.Resume || (m instanceof Cpu.Resched && !core.cfg.iopoll()));
  }

  /** The worker sharing this CPU is runnable; it runs now if the CPU is idle. */
  void onWorkerWants(Cpu.WorkerWants m, Outbox out) {
    workerWants = true;
    idleSoftirq(m.atPs(), out);
  }

  private void lend(long t, Outbox out) {
    lent = true;
    workerWants = false;
    workerFromPs = 0;
    out.send(core.worker, new IoWqWorker.CpuGranted(t, thread.exiting()));
  }

  /** The tick preempted the worker: it stays runnable, and the thread has its slice first. */
  void onWorkerPreempted(Cpu.WorkerPreempted m, Outbox out) {
    workerWants = true;
    workerFromPs = m.againFromPs();
    onWorkerYields(m.atPs(), out);
  }

  /** The worker went back to sleep at {@code t}: what waited runs, interrupts first. */
  void onWorkerYields(long t, Outbox out) {
    lent = false;
    busyUntilPs = Math.max(busyUntilPs, t);
    if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
      inIrq = true;
      irqReturned(irq.start(t, drainPending(), pendingTicks.drain(), out), out);
      return;
    }
    goOn(t, out);
  }

  /**
   * The tick's timer: it interrupts the thread's work at its next step boundary. A CPU whose thread
   * sleeps is idle and does not tick (CONFIG_NO_HZ_IDLE); one whose thread has ended stops.
   */
  void onTick(Cpu.Tick m, Outbox out) {
    if (thread.exiting()) {
      return;
    }
    boolean busy = thread.inFlight() || lent;
    boolean balance = busy && m.balanceEveryPs() > 0 && m.atPs() >= m.balanceAtPs();
    boolean vmstat = busy && m.vmstatEveryPs() > 0 && m.atPs() >= m.vmstatAtPs();
    if (m.atPs() + m.periodPs() < m.untilPs()) {
      out.send(core.self, m.next(balance, vmstat));
    }
    if (busy) {
      pendingTicks.add(balance, vmstat);
    }
  }

  void onInterrupt(NullBlkDevice.Interrupt raisedOrFired, Outbox out) {
    if (raisedOrFired instanceof NullBlkDevice.SoftirqRaised raised) {
      ksoftirqd.raised(raised);
      idleSoftirq(raised.atPs(), out);
      return;
    }
    NullBlkDevice.TimerFired m = (NullBlkDevice.TimerFired) raisedOrFired;
    pendingIrqs.add(m);
    if (idleNow()) {
      inIrq = true;
      irqReturned(irq.start(freeFrom(m.atPs()), drainPending(), pendingTicks.drain(), out), out);
    }
  }

  /** The interrupt path returned {@code endPs}, or -1 while a call of it is out. */
  private void irqReturned(long endPs, Outbox out) {
    if (endPs < 0) {
      return;
    }
    if (!pendingIrqs.isEmpty()) {
      irqReturned(irq.more(endPs, drainPending(), out), out);
      return;
    }
    if (irq.inSoftirq() && ksoftirqd.pending()) {
      irqReturned(irq.moreSoftirq(endPs, ksoftirqd.drain(), out), out);
      return;
    }
    inIrq = false;
    if (irq.inSoftirq() && ksoftirqd.switchBack()) {
      endPs = irq.softirqSwitchBack(endPs);
    }
    busyUntilPs = Math.max(busyUntilPs, endPs);
    goOn(endPs, out);
  }

  /** The CPU is the thread's again at {@code t}: it goes on, woken or where it was, or idles. */
  private void goOn(long t, Outbox out) {
    if (thread.loop().woken()) {
      run.wake(t, out);
      idleSoftirq(t, out);
    } else if (stashed != null) {
      // a step boundary like any other: a tick that came during the interrupt runs first
      SimMessage m = StashedReply.at(stashed, t);
      stashed = null;
      onThreadReply(m, out);
    } else {
      thread.cpuBack(t, out);
      idleSoftirq(t, out);
    }
  }

  /** Whether the io-wq worker runs on this CPU now. */
  boolean lent() {
    return lent;
  }

  private List<NullBlkDevice.TimerFired> drainPending() {
    List<NullBlkDevice.TimerFired> all = new ArrayList<>(pendingIrqs);
    pendingIrqs.clear();
    return all;
  }
}

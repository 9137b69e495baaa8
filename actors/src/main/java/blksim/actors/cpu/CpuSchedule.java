package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.kernel.sched.CfsRq;
import blksim.queues.kernel.sched.Rq;
import blksim.queues.kernel.sched.SchedEntity;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * What a CPU runs next: one of its tasks, as its run queue picks them ({@link CfsRq}), a hard
 * interrupt (null_blk's timers, the tick) taken at the running task's next step boundary or at once
 * on an idle CPU, ksoftirqd, which runs where the task schedules ({@link Ksoftirqd}), or the
 * thread's io-wq worker when it has no CPU of its own ({@link HostCpu}): where the thread
 * schedules, or when the CPU is idle. The step that waited goes on when the other is over.
 * Interrupts are the CPU's, whoever issued the request.
 *
 * <p>Tasks that share the CPU switch where the kernel of CONFIG_PREEMPT_VOLUNTARY lets them: where
 * one sleeps or exits, the next in the run queue runs; one the run queue asked to reschedule (a
 * tick that ended its slice, a wake-up that preempts it) switches at its return to user space, and
 * an IOPOLL ring's {@code io_iopoll_check} stops polling for it ({@code need_resched()}). A task
 * alone on its CPU never switches: the run queue has it only.
 */
final class CpuSchedule {
  private final CpuCore core;
  private final List<Task> tasks;

  /** The same tasks, for the loops of every step (no iterator a step). */
  private final Task[] all;

  /** The first task's path: the only one a CPU with an io-wq worker on it has (ModelSupport). */
  private final SubmitterPath thread;

  private final IrqPath irq;
  private final Ksoftirqd ksoftirqd;
  private final Rq rq;
  private final ArrayDeque<NullBlkActor.TimerFired> pendingIrqs = new ArrayDeque<>();
  private final PendingTicks pendingTicks = new PendingTicks();
  private SimMessage stashed;
  private boolean inIrq;

  /** The task that has the CPU (it runs, or a call of its is out), or null when none has. */
  private Task current;

  /** The io-wq worker runs on this CPU now. */
  private boolean lent;

  /** When the CPU's last interrupt or worker run ended. */
  private long busyUntilPs;

  /** The worker sharing this CPU is runnable: woken for work or for a tag, or preempted. */
  private boolean workerWants;

  /** A preempted worker runs where the thread schedules from here: the thread's slice is over. */
  private long workerFromPs;

  CpuSchedule(CpuCore core, List<Task> tasks, IrqPath irq, Rq rq) {
    this.core = core;
    this.tasks = tasks;
    this.all = tasks.toArray(new Task[0]);
    this.thread = tasks.get(0).thread;
    this.irq = irq;
    this.ksoftirqd = core.ksoftirqd;
    this.rq = rq;
    for (Task task : tasks) {
      task.core.needResched = this::needResched;
    }
  }

  /**
   * The threads start: t/io_uring's main thread made each on its own CPU (where it and the new
   * thread ran) and pinned it here, so each joins the run queue with the same debit; the first it
   * picks runs.
   */
  void pass(long t, Outbox out) {
    for (Task task : tasks) {
      task.se = rq.forkPinned(task.comm(), t);
    }
    dispatch(t, out);
    idleSoftirq(t, out);
  }

  /** Another CPU's completion woke {@code task} from its sleep: it runs if the CPU is idle. */
  void wake(Task task, long t, Outbox out) {
    rq.wakeUp(task.se, t);
    if (!inIrq && !lent && current == null) {
      dispatch(freeFrom(t), out);
      idleSoftirq(t, out);
    }
  }

  /**
   * {@code task} has ended, and its ring's teardown has requests of its io-wq worker to poll from
   * {@code t}: alone on the CPU it polls now; else it waits in {@code io_uring}'s teardown on the
   * run queue (at its {@code cond_resched}, as a task woken there) until it is picked.
   */
  void teardownPoll(Task task, long t, Outbox out) {
    if (tasks.size() == 1) {
      task.thread.teardownPoll(t, out);
      return;
    }
    rq.wakeUp(task.se, t);
    task.thread.loop().to(EnterLoop.Phase.RESCHED);
    task.park(new Cpu.Resched(t, task.core.slot));
    if (current == null && !inIrq && !lent) {
      dispatch(freeFrom(t), out);
    }
  }

  /** The run queue's picture of the CPU's tasks. */
  CfsRq runQueue() {
    return rq.cfs();
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

  void onBioSetReply(int slot, BioSetActor.Reply m, Outbox out) {
    if (m instanceof BioSetActor.Put put && inIrq) {
      irqReturned(irq.onBiosPut(put.atPs(), out), out);
    } else {
      onThreadReply(slot, m, out);
    }
  }

  void onBlockReply(int slot, BlockDevice.Reply m, Outbox out) {
    if (m instanceof BlockDevice.IrqEnded ended) {
      irqReturned(irq.onIrqEnded(ended, out), out);
    } else if (m instanceof BlockDevice.Woken && (inIrq || lent)) {
      // this CPU's interrupt freed the tag: the woken thread runs when the interrupt is over
      if (arrives(tasks.get(slot), m, out)) {
        stashed = m;
      }
    } else if (m instanceof BlockDevice.Slept) {
      // the thread sleeps for a tag: the CPU is idle, and takes the interrupts that waited
      tasks.get(slot).run.handle(m, out);
      if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
        // off the run queue first: a tag one of them frees wakes it as any sleeper, runnable
        // again, and with others on the CPU the run queue picks who runs after the interrupt
        leftCpu();
        inIrq = true;
        irqReturned(irq.start(freeFrom(m.atPs()), drainPending(), pendingTicks.drain(), out), out);
      } else {
        idleSoftirq(m.atPs(), out);
      }
    } else {
      onThreadReply(slot, m, out);
    }
  }

  /** A step boundary of the task in {@code slot}: pending interrupts run first. */
  void onThreadReply(int slot, SimMessage m, Outbox out) {
    Task task = tasks.get(slot);
    if (task != current && !arrives(task, m, out)) {
      return;
    }
    if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
      stashed = m;
      inIrq = true;
      irqReturned(irq.start(m.atPs(), drainPending(), pendingTicks.drain(), out), out);
      return;
    }
    threadStep(m, out);
  }

  /**
   * A reply to {@code task}, which does not have the CPU: a wake-up (the tag it slept for), or,
   * alone on its CPU, its ring's teardown that polls again. It has the CPU now if the CPU is idle
   * or it is alone; else it waits in the run queue, to go on with {@code m} when it is picked.
   *
   * @return whether it has the CPU now
   */
  private boolean arrives(Task task, SimMessage m, Outbox out) {
    rq.wakeUp(task.se, m.atPs());
    if (tasks.size() == 1) {
      if (task.se.state() == SchedEntity.State.RUNNABLE) {
        rq.schedule(m.atPs());
      }
      current = task;
      return true;
    }
    task.park(m);
    if (current == null && !inIrq && !lent) {
      dispatch(freeFrom(m.atPs()), out);
    }
    return false;
  }

  /** The task goes on with {@code m}; where it schedules, what waits for that runs first. */
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
    if ((m instanceof Cpu.Resume || m instanceof Cpu.Resched && current.thread.exiting())
        && needResched(m.atPs())) { // the return to user space, or the teardown's cond_resched
      switchFrom(m, out);
      return;
    }
    current.run.handle(m, out);
    idleSoftirq(m.atPs(), out);
  }

  /**
   * TIF_NEED_RESCHED of the running task at {@code t}: the run queue sees the last tick up to then
   * ({@code check_preempt_tick}), as well as the wake-ups that asked for it. Never for a task alone
   * on its CPU.
   */
  private boolean needResched(long t) {
    return rq.needResched(t);
  }

  /**
   * The running task returns to user space with TIF_NEED_RESCHED: {@code schedule()} switches to
   * the task the run queue picks, and the task goes on with {@code m} when it is picked again.
   */
  private void switchFrom(SimMessage m, Outbox out) {
    Task prev = current;
    long t = m.atPs();
    Task next = taskOf(rq.schedule(t));
    if (next == prev) {
      prev.run.handle(m, out);
      idleSoftirq(t, out);
      return;
    }
    prev.park(m);
    t += core.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1); // __schedule, context_switch
    current = next;
    resume(next, t, out);
  }

  /** The run queue picks the task to run at {@code t} on an idle CPU; it goes on. */
  private void dispatch(long t, Outbox out) {
    current = taskOf(rq.schedule(t));
    if (current != null) {
      resume(current, t, out);
    }
  }

  /** {@code task} has the CPU from {@code t}: it starts, is switched back in, or goes on. */
  private void resume(Task task, long t, Outbox out) {
    if (task.parked()) {
      onThreadReply(task.core.slot, task.unpark(t), out);
      return;
    }
    task.resume(t, out);
    idleSoftirq(t, out);
  }

  private Task taskOf(SchedEntity se) {
    if (se == null) {
      return null;
    }
    for (Task task : tasks) {
      if (task.se == se) {
        return task;
      }
    }
    throw new IllegalStateException(
        core.self.name() + ": picked " + se + ", not a task of its own");
  }

  /**
   * The running task, if it went to sleep or ended its work (no call of its is out), leaves the
   * CPU: the run queue dequeues it.
   */
  private void leftCpu() {
    if (current == null || stashed != null || current.thread.inFlight()) {
      return;
    }
    if (current.se.state() == SchedEntity.State.RUNNING) {
      // asleep, or ended with requests of its io-wq worker still to come back, or done for good
      rq.dequeueCurr(current.freeAtPs(), current.thread.done());
    }
    current = null;
  }

  /** Whether every task of the CPU has ended its loop. */
  private boolean allExiting() {
    for (Task task : all) {
      if (!task.thread.exiting()) {
        return false;
      }
    }
    return true;
  }

  /** Tasks an interrupt here woke from their sleep are runnable again. */
  private void wakeWoken(long t) {
    for (Task task : all) {
      if (task.thread.loop().woken() && task.se.state() == SchedEntity.State.SLEEPING) {
        rq.wakeUp(task.se, t);
      }
    }
  }

  /**
   * The CPU may be idle (its task asleep or ended): a runnable ksoftirqd runs now, else a runnable
   * io-wq worker that shares the CPU, else the next task the run queue has.
   */
  void idleSoftirq(long t, Outbox out) {
    leftCpu();
    wakeWoken(t); // a sibling whose request ended in this task's queue_rq
    if (!idleNow()) {
      return;
    }
    if (ksoftirqd.pending()) {
      inIrq = true;
      ksoftirqd.runs(false);
      irqReturned(irq.startSoftirq(freeFrom(t), ksoftirqd.drain(), false, out), out);
    } else if (workerWants) {
      lend(freeFrom(t), out);
    } else if (rq.nrRunning() > 0) {
      dispatch(freeFrom(t), out);
    }
  }

  /**
   * When work that finds the CPU idle at {@code t} can start: after its tasks went to sleep, and
   * after the last interrupt or worker run, whose end the CPU knew before it came.
   */
  private long freeFrom(long t) {
    long free = busyUntilPs;
    for (Task task : all) {
      free = Math.max(free, task.thread.freeAtPs());
    }
    return Math.max(t, free);
  }

  /** Nothing runs on the CPU: its tasks sleep or ended, and no interrupt or worker runs. */
  private boolean idleNow() {
    if (inIrq || lent || stashed != null || current != null) {
      return false;
    }
    for (Task task : all) {
      if (task.thread.inFlight() && !task.parked()) { // a parked one waits to be picked
        return false;
      }
    }
    return true;
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
    out.send(core.worker, new Cpu.WorkerGranted(t, thread.exiting()));
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
    if (allExiting()) {
      return;
    }
    boolean busy = current != null && current.thread.inFlight() || lent;
    boolean balance = m.timer().balances(busy);
    boolean vmstat = m.timer().firesVmstat(busy);
    if (m.timer().rearms()) {
      out.send(core.self, new Cpu.Tick(m.timer().next(balance, vmstat)));
    }
    if (busy) {
      pendingTicks.add(balance, vmstat);
    }
  }

  void onInterrupt(NullBlkActor.Interrupt raisedOrFired, Outbox out) {
    if (raisedOrFired instanceof NullBlkActor.SoftirqRaised raised) {
      ksoftirqd.raised(raised);
      idleSoftirq(raised.atPs(), out);
      return;
    }
    NullBlkActor.TimerFired m = (NullBlkActor.TimerFired) raisedOrFired;
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

  /**
   * The CPU is the tasks' again at {@code t}: the running one goes on where it was, or the run
   * queue picks one (one an interrupt woke), or, with none runnable, the CPU idles.
   */
  private void goOn(long t, Outbox out) {
    leftCpu();
    wakeWoken(t);
    if (stashed != null) {
      // a step boundary like any other: a tick that came during the interrupt runs first
      SimMessage m = StashedReply.at(stashed, t);
      stashed = null;
      onThreadReply(current.core.slot, m, out);
    } else if (current == null && rq.nrRunning() > 0) {
      dispatch(t, out);
    } else {
      thread.cpuBack(t, out);
      idleSoftirq(t, out);
    }
  }

  /** Whether the io-wq worker runs on this CPU now. */
  boolean lent() {
    return lent;
  }

  private List<NullBlkActor.TimerFired> drainPending() {
    List<NullBlkActor.TimerFired> all = new ArrayList<>(pendingIrqs);
    pendingIrqs.clear();
    return all;
  }
}

package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.WorkerSpin;
import blksim.queues.kernel.sched.CfsRq;
import blksim.queues.kernel.sched.PendingTicks;
import blksim.queues.kernel.sched.Rq;
import blksim.queues.kernel.sched.SchedEntity;
import blksim.queues.kernel.softirq.Ksoftirqd;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * What a CPU runs next: one of its tasks, as its run queue picks them ({@link CfsRq}) — submitter
 * threads and io-wq workers alike ({@link Task}) — a hard interrupt (null_blk's timers, the tick)
 * taken at the running task's next step boundary or at once on an idle CPU (or while its task waits
 * for a mutex), or ksoftirqd, which runs where the task schedules ({@link Ksoftirqd}). The step
 * that waited goes on when the other is over. Interrupts are the CPU's, whoever issued the request.
 *
 * <p>Tasks that share the CPU switch where the kernel of CONFIG_PREEMPT_VOLUNTARY lets them: where
 * one sleeps or exits, the next in the run queue runs; one the run queue asked to reschedule (a
 * tick that ended its slice, a wake-up that preempts it) switches at its next point of preemption
 * ({@link Task#preemptibleAt}: a thread's return to user space, a worker's {@code cond_resched}),
 * and an IOPOLL ring's {@code io_iopoll_check} stops polling for it ({@code need_resched()}). A
 * task alone on its CPU never switches: the run queue has it only.
 */
final class CpuSchedule {
  private final ThisCpu cpu;
  private final List<Task> tasks;

  /** The same tasks, for the loops of every step (no iterator a step). */
  private final Task[] all;

  private final IrqPath irq;
  private final Ksoftirqd<NullBlkActor.SoftirqRaised> ksoftirqd;
  private final Rq rq;
  private final ArrayDeque<NullBlkActor.TimerFired> pendingIrqs = new ArrayDeque<>();

  /**
   * The scheduler ticks that fired while a call of the running task was out: they run in the
   * interrupt at the call's end ({@link IrqPath#start}).
   */
  private final PendingTicks pendingTicks = new PendingTicks();

  private SimMessage stashed;
  private boolean inIrq;

  /** When the running interrupt began. */
  private long irqStartPs;

  /** The task that has the CPU (it runs, or a call of its is out), or null when none has. */
  private Task current;

  /** When the CPU's last interrupt ended. */
  private long busyUntilPs;

  /**
   * The running thread turns in its empty loop from this time until its worker can run ({@link
   * SubmitterPath#waitsForItsWorkerHere}); -1 when it does not.
   */
  private long emptyFromPs = -1;

  /** The last of those spins, which its {@link Cpu.SliceEnds} names. */
  private long emptySpin;

  /**
   * The last spin for a mutex that a task woken behind it made the CPU time ({@link #woke}), which
   * its {@link Cpu.SliceEnds} names.
   */
  private long mutexSpin;

  CpuSchedule(ThisCpu cpu, List<Task> tasks, IrqPath irq, Rq rq) {
    this.cpu = cpu;
    this.tasks = tasks;
    this.all = tasks.toArray(new Task[0]);
    this.irq = irq;
    this.ksoftirqd = cpu.ksoftirqd;
    this.rq = rq;
    for (Task task : tasks) {
      if (task instanceof SubmitterThread thread) {
        thread.core.needResched = this::needResched;
      }
    }
  }

  /**
   * The threads start: t/io_uring's main thread made each on its own CPU (where it and the new
   * thread ran) and pinned it here, so each joins the run queue with the same debit; the first it
   * picks runs. An io-wq worker is made asleep, by its thread's first punt ({@code
   * create_io_worker}), and a dmsetup process by its first command; each joins the run queue when
   * woken.
   */
  void pass(long t, Outbox out) {
    for (Task task : tasks) {
      if (task instanceof SubmitterThread) {
        task.se = rq.forkPinned(task.comm(), t);
      }
    }
    dispatch(t, out);
    idleSoftirq(t, out);
  }

  /**
   * {@code task} was woken at {@code t} (a thread by another CPU's completion, a worker for work):
   * it runs if the CPU is idle, else when the run queue picks it.
   */
  void wake(Task task, long t, Outbox out) {
    if (task.se == null) {
      task.se = rq.fork(task.comm(), t); // a worker's first wake-up: wake_up_new_task
    }
    rq.wakeUp(task.se, t);
    if (!inIrq && current == null) {
      dispatch(freeFrom(t), out);
      idleSoftirq(t, out);
    } else {
      woke(t, out);
    }
  }

  /**
   * {@code task} has ended, and its ring's teardown has requests of its io-wq worker to poll from
   * {@code t}: alone on the CPU it polls now; else it waits in {@code io_uring}'s teardown on the
   * run queue (at its {@code cond_resched}, as a task woken there) until it is picked, and, like
   * any wake-up, may preempt a worker that spins on the CPU ({@link #woke}).
   */
  void teardownPoll(SubmitterThread task, long t, Outbox out) {
    if (tasks.size() == 1) {
      task.path.teardownPoll(t, out);
      return;
    }
    rq.wakeUp(task.se, t);
    task.path.loop().to(EnterLoop.Phase.RESCHED);
    task.park(new Cpu.Resched(t, task.slot));
    if (current == null && !inIrq) {
      dispatch(freeFrom(t), out);
    } else if (!inIrq) {
      woke(t, out);
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
    for (Task task : all) {
      if (!(task instanceof SubmitterThread) && task.parked()) {
        left.add(task.comm() + " runnable");
      }
    }
    return String.join(", ", left);
  }

  void onBioSetReply(int slot, BioSetActor.Reply m, Outbox out) {
    if (slot == Cpu.IRQ) {
      irqReturned(irq.onBiosPut(m.atPs(), out), out);
    } else {
      onThreadReply(slot, m, out);
    }
  }

  void onBlockReply(int slot, BlockDevice.Reply m, Outbox out) {
    if (m instanceof BlockDevice.IrqEnded ended) {
      irqReturned(irq.onIrqEnded(ended, out), out);
    } else if (m instanceof BlockDevice.TagFreed f) {
      spinEnds(slot, f.spin(), f.atPs(), WorkerSpin.End.TAG, out);
    } else if (m instanceof BlockDevice.Woken && inIrq) {
      // this CPU's interrupt freed the tag: the woken task runs when the interrupt is over (it has
      // the CPU still if the interrupt came as it went to sleep)
      Task task = tasks.get(slot);
      if (task == current || arrives(task, m, out)) {
        stashed = m;
      }
    } else if (m instanceof BlockDevice.Slept) {
      // the task sleeps for a tag: the CPU is idle, and takes the interrupts that waited
      tasks.get(slot).handle(m, out);
      if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
        // off the run queue first: a tag one of them frees wakes it as any sleeper, runnable
        // again, and with others on the CPU the run queue picks who runs after the interrupt
        leftCpu();
        startIrq(freeFrom(m.atPs()), out);
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
    if (inIrq) { // the answer to a task that waited for a mutex, while an interrupt runs
      stashed = m;
      return;
    }
    if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
      stashed = m;
      startIrq(m.atPs(), out);
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
    if (current == null && !inIrq) {
      dispatch(freeFrom(m.atPs()), out);
    } else {
      woke(m.atPs(), out);
    }
    return false;
  }

  /** The task goes on with {@code m}; where it schedules, what waits for that runs first. */
  private void threadStep(SimMessage m, Outbox out) {
    if (ksoftirqd.pending() && current.schedulesAt(m)) {
      stashed = m;
      inIrq = true;
      irqStartPs = m.atPs();
      ksoftirqd.runs(true);
      irqReturned(irq.startSoftirq(m.atPs(), ksoftirqd.drain(), true, out), out);
      return;
    }
    if (current.preemptibleAt(m) && needResched(m.atPs())) {
      switchFrom(m, out);
      return;
    }
    if (m instanceof Cpu.Resume
        && current instanceof SubmitterThread thread
        && waitsForWorker(thread, m.atPs(), out)) {
      return;
    }
    current.handle(m, out);
    if (spinsOnMutex() && rq.nrRunning() > 1) {
      woke(m.atPs(), out); // it spins for a mutex while another task waits for the CPU
    }
    idleSoftirq(m.atPs(), out);
  }

  /**
   * The running thread is back in user space at {@code t} with nothing to do until its io-wq
   * worker, on this CPU, runs: it turns in its empty loop, in closed form, until the tick at which
   * the run queue asks it to reschedule, or until the CPU has something to take at one of its
   * returns to user space ({@link #cutSpin}).
   *
   * @return whether it does
   */
  private boolean waitsForWorker(SubmitterThread thread, long t, Outbox out) {
    if (!thread.path.waitsForItsWorkerHere()) {
      return false;
    }
    long until = rq.reschedTick(t);
    if (until == Long.MAX_VALUE || until <= t) {
      return false; // its worker is not runnable, or it switches now
    }
    emptyFromPs = t;
    out.send(cpu.self, new Cpu.SliceEnds(until, ++emptySpin, current.slot));
    return true;
  }

  /**
   * The running thread's empty loop is brought up to {@code at}: the calls it made by then are
   * counted, and it turns on from the last.
   */
  void catchUp(long at) {
    if (emptyFromPs >= 0 && at > emptyFromPs) {
      emptyFromPs = ((SubmitterThread) current).path.emptyEnters(emptyFromPs, at);
    }
  }

  /**
   * Its empty loop ends at the first return to user space at or after {@code at}: a step boundary,
   * where the thread goes on (or is switched out).
   */
  private void emptyEnds(long at, Outbox out) {
    long t = ((SubmitterThread) current).path.emptyEnters(emptyFromPs, at);
    emptyFromPs = -1;
    onThreadReply(current.slot, new Cpu.Resume(t, current.slot), out);
  }

  /** The tick that ends spin {@code id} of the task in {@code slot}. */
  void sliceEnds(int slot, long id, long at, Outbox out) {
    Task task = tasks.get(slot);
    if (task == current && id == mutexSpin && spinsOnMutex() && rq.needResched(at)) {
      mutexSleeps(at, out);
    } else if (task instanceof IoWqWorker) {
      spinEnds(slot, id, at, WorkerSpin.End.SLICE, out);
    } else if (emptyFromPs >= 0 && id == emptySpin && task == current) {
      emptyEnds(at, out);
    }
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
   * The tick at or after {@code t} at which the run queue asks the running task to reschedule, as
   * things stand; {@link Long#MAX_VALUE} while it runs alone.
   */
  long reschedTick(long t) {
    return rq.reschedTick(t);
  }

  /**
   * The running task is at a point of preemption with TIF_NEED_RESCHED: {@code schedule()} switches
   * to the task the run queue picks, and the task goes on with {@code m} when it is picked again.
   */
  private void switchFrom(SimMessage m, Outbox out) {
    Task prev = current;
    long t = m.atPs();
    Task next = taskOf(rq.schedule(t));
    if (next == prev) {
      prev.handle(m, out);
      idleSoftirq(t, out);
      return;
    }
    prev.park(m);
    t += cpu.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1); // __schedule, context_switch
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
      onThreadReply(task.slot, task.unpark(t), out);
      return;
    }
    task.resume(t, out);
    idleSoftirq(t, out);
  }

  private Task taskOf(SchedEntity se) {
    if (se == null) {
      return null;
    }
    for (Task task : all) {
      if (task.se == se) {
        return task;
      }
    }
    throw new IllegalStateException(cpu.self.name() + ": picked " + se + ", not a task of its own");
  }

  /**
   * The running task, if it went to sleep or ended its work (no call of its is out), leaves the
   * CPU: the run queue dequeues it.
   */
  private void leftCpu() {
    if (current == null || stashed != null || current.inFlight()) {
      return;
    }
    if (current.se.state() == SchedEntity.State.RUNNING) {
      // asleep, or ended with requests of its io-wq worker still to come back, or done for good
      rq.dequeueCurr(current.freeAtPs(), current.done());
    }
    current = null;
  }

  /**
   * Whether every thread of the CPU has ended its loop; on a CPU that runs no thread, whether it
   * runs one task only (an io-wq worker or dmsetup alone, which never shares the CPU).
   */
  private boolean allExiting() {
    boolean threads = false;
    for (Task task : all) {
      if (task instanceof SubmitterThread) {
        threads = true;
        if (!task.exiting()) {
          return false;
        }
      }
    }
    return threads || all.length == 1;
  }

  /** Tasks an interrupt here woke from their sleep are runnable again. */
  private void wakeWoken(long t) {
    for (Task task : all) {
      if (task.se != null && task.se.state() == SchedEntity.State.SLEEPING && task.woken()) {
        rq.wakeUp(task.se, t);
      }
    }
  }

  /**
   * The CPU may be idle (its task asleep or ended): a runnable ksoftirqd runs now, else the next
   * task the run queue has.
   */
  void idleSoftirq(long t, Outbox out) {
    leftCpu();
    wakeWoken(t); // a sibling whose request ended in this task's queue_rq
    if (ksoftirqd.pending() && waitsForMutex()) {
      // the task's mutex_lock is a might_sleep, and a runnable ksoftirqd ends its optimistic
      // spin: it sleeps there, and ksoftirqd runs as on an idle CPU
      inIrq = true;
      irqStartPs = freeFrom(t);
      ksoftirqd.runs(false);
      irqReturned(irq.startSoftirq(irqStartPs, ksoftirqd.drain(), false, out), out);
      return;
    }
    if (!idleNow()) {
      return;
    }
    if (ksoftirqd.pending()) {
      inIrq = true;
      irqStartPs = freeFrom(t);
      ksoftirqd.runs(false);
      irqReturned(irq.startSoftirq(irqStartPs, ksoftirqd.drain(), false, out), out);
    } else if (rq.nrRunning() > 0) {
      dispatch(freeFrom(t), out);
    }
  }

  /**
   * When work that finds the CPU idle at {@code t} can start: after its tasks went to sleep, and
   * after the last interrupt, whose end the CPU knew before it came.
   */
  private long freeFrom(long t) {
    long free = busyUntilPs;
    for (Task task : all) {
      free = Math.max(free, task.freeAtPs());
    }
    return Math.max(t, free);
  }

  /** Nothing runs on the CPU: its tasks sleep or ended, and no interrupt runs. */
  private boolean idleNow() {
    if (inIrq || stashed != null || current != null) {
      return false;
    }
    for (Task task : all) {
      if (task.inFlight() && !task.parked()) { // a parked one waits to be picked
        return false;
      }
    }
    return true;
  }

  /**
   * The tick's timer: it interrupts the running task's work at its next step boundary. A CPU whose
   * tasks sleep is idle and does not tick (CONFIG_NO_HZ_IDLE); one whose threads have ended stops.
   */
  void onTick(Cpu.Tick m, Outbox out) {
    if (allExiting()) {
      return;
    }
    boolean busy = current != null && current.inFlight();
    boolean balance = m.timer().balances(busy);
    boolean vmstat = m.timer().firesVmstat(busy);
    if (m.timer().rearms()) {
      out.send(cpu.self, new Cpu.Tick(m.timer().next(balance, vmstat)));
    }
    if (busy) {
      pendingTicks.add(balance, vmstat);
      // the tick that ends a spinner's slice comes as this one, or is this one's check
      cutSpin(
          m.atPs(),
          rq.reschedTick(m.atPs()) <= m.atPs() ? WorkerSpin.End.SLICE : WorkerSpin.End.CUT,
          out);
    }
  }

  void onInterrupt(NullBlkActor.Interrupt raisedOrFired, Outbox out) {
    if (raisedOrFired instanceof NullBlkActor.SoftirqRaised raised) {
      ksoftirqd.raised(raised);
      idleSoftirq(raised.atPs(), out);
      cutSpin(raised.atPs(), WorkerSpin.End.CUT, out);
      return;
    }
    NullBlkActor.TimerFired m = (NullBlkActor.TimerFired) raisedOrFired;
    pendingIrqs.add(m);
    if (idleNow()) {
      startIrq(freeFrom(m.atPs()), out);
    } else if (waitsForMutex()) {
      // the task spins or sleeps on a mutex: the CPU takes the interrupt now
      startIrq(freeFrom(m.atPs()), out);
    } else {
      cutSpin(m.atPs(), WorkerSpin.End.CUT, out);
    }
  }

  /**
   * Whether the running task waits for a mutex (an io-wq worker for its ring's {@code uring_lock})
   * and nothing else runs: the CPU takes what comes meanwhile at once.
   */
  private boolean waitsForMutex() {
    return !inIrq && stashed == null && current != null && current.waitsInterruptibly();
  }

  /**
   * Whether the running task spins for a mutex whose owner runs on another CPU (an io-wq worker on
   * a CPU of its own, for its ring's {@code uring_lock}): a {@code need_resched} here ends the
   * spin.
   */
  private boolean spinsOnMutex() {
    return waitsForMutex() && current instanceof IoWqWorker worker && worker.spinsOnRunningOwner();
  }

  /** A hard interrupt begins at {@code t}: the timers and ticks that wait. */
  private void startIrq(long t, Outbox out) {
    inIrq = true;
    irqStartPs = t;
    irqReturned(irq.start(t, drainPending(), pendingTicks.drain(), out), out);
  }

  /**
   * A spinning task is cut at its next point of preemption after {@code t} (an io-wq worker's
   * {@code cond_resched}, a thread's return to user space): something the CPU takes there came (an
   * interrupt, a tick, ksoftirqd, a wake-up that preempts it).
   */
  private void cutSpin(long t, WorkerSpin.End why, Outbox out) {
    if (current == null || inIrq || stashed != null) {
      return;
    }
    if (emptyFromPs >= 0) {
      emptyEnds(t, out);
      return;
    }
    if (!(current instanceof IoWqWorker worker)) {
      return;
    }
    long id = worker.spinning();
    if (id >= 0) {
      spinEnds(current.slot, id, t, why, out);
    }
  }

  /**
   * Spin {@code id} of the worker in {@code slot} ends at its first {@code cond_resched} after
   * {@code at}: a step boundary of the CPU, where the worker goes on (or is switched out).
   */
  void spinEnds(int slot, long id, long at, WorkerSpin.End why, Outbox out) {
    Task task = tasks.get(slot);
    long t = ((IoWqWorker) task).spinEnds(id, at, why);
    if (t >= 0) {
      onThreadReply(slot, new Cpu.Resched(t, slot), out);
    }
  }

  /**
   * Another task of this CPU became runnable: a spinning worker it preempts stops at once; one that
   * spins for its ring's {@code uring_lock} sleeps on the mutex, and the run queue picks who runs.
   */
  void woke(long t, Outbox out) {
    if (!spinsOnMutex()) {
      if (rq.cfs().needResched()) {
        cutSpin(t, WorkerSpin.End.CUT, out);
      } else if (allExiting()) {
        sliceEndsWithoutTick(t, out);
      }
    } else if (rq.cfs().needResched()) {
      mutexSleeps(Math.max(t, busyUntilPs), out);
    } else {
      // it spins on until the tick that ends its slice, which the run queue names
      long until = rq.reschedTick(t);
      if (until != Long.MAX_VALUE) {
        out.send(cpu.self, new Cpu.SliceEnds(Math.max(t, until), ++mutexSpin, current.slot));
      }
    }
  }

  /**
   * The CPU's threads have ended, so its tick no longer comes ({@link #onTick}) to end a worker's
   * spin for a tag: the tick at which the run queue would ask the spinner to reschedule, now that
   * another task waits, comes as its own message. Without it a worker spinning beside the ring's
   * teardown, for a tag that only the teardown's poll frees, would spin for ever.
   */
  private void sliceEndsWithoutTick(long t, Outbox out) {
    if (!(current instanceof IoWqWorker worker)) {
      return;
    }
    long id = worker.spinning();
    long until = rq.reschedTick(t);
    if (id >= 0 && until != Long.MAX_VALUE) {
      out.send(cpu.self, new Cpu.SliceEnds(Math.max(t, until), id, current.slot));
    }
  }

  /**
   * The running task, spinning for a mutex (an io-wq worker for its ring's {@code uring_lock}), is
   * asked to reschedule at {@code t}: the mutex's optimistic spin ends, it sleeps on the mutex
   * until the lock is granted, and the run queue picks who runs.
   */
  private void mutexSleeps(long t, Outbox out) {
    ((IoWqWorker) current).lockSleeps(t);
    leftCpu();
    dispatch(freeFrom(t), out);
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
    if (current instanceof IoWqWorker worker && worker.waitsInterruptibly()) {
      worker.interrupted(endPs - irqStartPs);
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
    if (stashed == null && spinsOnMutex() && rq.nrRunning() > 1) {
      // a task woken, or the tick that ends the spinner's slice, came during the interrupt
      woke(t, out);
      if (current == null || !current.waitsInterruptibly()) {
        return; // it slept on the mutex, and the run queue picked who runs
      }
    }
    if (stashed != null) {
      // a step boundary like any other: a tick that came during the interrupt runs first
      SimMessage m = StashedReply.at(stashed, t);
      stashed = null;
      onThreadReply(current.slot, m, out);
    } else if (current == null && rq.nrRunning() > 0) {
      dispatch(t, out);
    } else {
      idleSoftirq(t, out);
    }
  }

  private List<NullBlkActor.TimerFired> drainPending() {
    List<NullBlkActor.TimerFired> drained = new ArrayList<>(pendingIrqs);
    pendingIrqs.clear();
    return drained;
  }
}

package blksim.queues.kernel.sched;

import blksim.queues.kernel.softirq.Ksoftirqd;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one CPU runs next (kernel/sched/core.c's {@code __schedule}, {@code try_to_wake_up} and the
 * points where a task meets them, with the interrupts taken between them): one of its tasks, as its
 * run queue picks them ({@link Rq}) — submitter threads, io-wq workers and dmsetup processes alike
 * ({@link Task}) — a hard interrupt (a device's timers, the scheduler tick) taken at the running
 * task's next step boundary or at once on an idle CPU (or while its task waits for a mutex), or
 * ksoftirqd, which runs where the task schedules ({@link Ksoftirqd}). The step that waited goes on
 * when the other is over.
 *
 * <p>The model does not cut a step: a task's call into another component is out until its reply
 * comes back, and that reply is the step boundary where whatever came meanwhile runs first
 * (docs/model.md section 2, "Scheduling" and "Completion").
 *
 * <p>Tasks that share the CPU switch where the kernel of CONFIG_PREEMPT_VOLUNTARY lets them: where
 * one sleeps or exits, the next in the run queue runs; one the run queue asked to reschedule (a
 * tick that ended its slice, a wake-up that preempts it) switches at its next point of preemption
 * ({@link Task#preemptibleAt}: a thread's return to user space, a worker's {@code cond_resched}),
 * and an IOPOLL ring's {@code io_iopoll_check} stops polling for it ({@code need_resched()}). A
 * task alone on its CPU never switches: the run queue has it only.
 *
 * <p>Plain Java: the CPU's actor gives it each event (a reply to a task's call, a timer, a tick, a
 * raise, a wake-up, a slice's end) and it answers through what the actor lends it: the tasks
 * themselves, the interrupt path ({@link Irq}) and the CPU's own messages ({@link Effects}).
 *
 * @param <S> a step: the reply a task goes on with (its time is {@link Effects#at})
 * @param <O> where the CPU sends what a step sends; passed through to the tasks and the interrupt
 *     path, never read here
 * @param <F> a device's timer that fired, which a hard interrupt runs
 * @param <R> what a raise of BLOCK_SOFTIRQ puts on the CPU's list, which ksoftirqd runs
 */
public final class SchedCore<S, O, F, R> {

  /**
   * A task of the CPU ({@code struct task_struct}) as its schedule sees it: each runs, makes calls,
   * sleeps, is woken and is switched where the kernel would; what differs between kinds is where
   * each may be switched, which each says.
   */
  public interface Task<S, O> {
    /**
     * Its place on the CPU: its threads first, in thread order, then its io-wq workers, then its
     * dmsetup processes.
     */
    int slot();

    /** The task's name, as {@code comm}. */
    String comm();

    /** Its entity in the CPU's run queue, from its fork on; null before. */
    SchedEntity sched();

    /** Its entity, made at its fork. */
    void sched(SchedEntity se);

    /**
     * The task, not parked, has the CPU from {@code t}: it starts, or is switched back in after the
     * sleep that a wake-up ended.
     */
    void resume(long t, O out);

    /** The reply to the call the task has out, at a step boundary of the CPU. */
    void handle(S m, O out);

    /**
     * Whether the task reaches a point where the CPU schedules at {@code m}: a thread's return to
     * user space or a {@code might_sleep}, a worker's {@code cond_resched}. ksoftirqd runs there.
     */
    boolean schedulesAt(S m);

    /** Whether the task switches at {@code m} when the run queue asks it to. */
    boolean preemptibleAt(S m);

    /** A call of the task is out: the CPU is busy with it until the reply comes back. */
    boolean inFlight();

    /** A wake-up ended the task's sleep, and it has not run since. */
    boolean woken();

    /** From when the CPU is free of the task's work (asleep, or ended). */
    long freeAtPs();

    /**
     * Its call is out but it waits in a way that lets the CPU take interrupts meanwhile: a worker
     * spinning on, or asleep for, its ring's {@code uring_lock}.
     */
    default boolean waitsInterruptibly() {
      return false;
    }

    /** A thread that has ended its loop (no other kind ends). */
    default boolean exiting() {
      return false;
    }

    /** It has nothing left to do, for good: a thread ended with nothing in the kernel. */
    default boolean done() {
      return false;
    }
  }

  /** A user thread with an io_uring ring: t/io_uring's submitter thread. */
  public interface UserThread<S, O> extends Task<S, O> {
    /** Whether {@code m} is the return of its syscall to user space. */
    boolean returnsToUserAt(S m);

    /**
     * Back in user space, it has nothing to do until its io-wq worker, on this CPU, runs: it turns
     * in its empty loop.
     */
    boolean waitsForItsWorkerHere();

    /**
     * The calls its empty loop made from {@code fromPs} until {@code untilPs} are counted; the time
     * of the return to user space at which the last ends, at or after {@code untilPs}.
     */
    long emptyEnters(long fromPs, long untilPs);

    /** Ended, and alone on its CPU: its ring's teardown polls the requests left, now. */
    void teardownPoll(long t, O out);

    /** Ended, it waits in its ring's teardown, at a {@code cond_resched}, to be picked. */
    void waitsInTeardown();
  }

  /**
   * A kernel thread that spins in its call while the CPU's run queue lets it: an io-wq worker,
   * turning in its {@code -EAGAIN} loop for a tag, or spinning for its ring's {@code uring_lock}.
   */
  public interface KernelThread<S, O> extends Task<S, O> {
    /** The number of the spin for a tag it is in, or -1 when it is in none. */
    long spinning();

    /**
     * Spin {@code id} is cut: something the CPU takes came at {@code at}. The time of its first
     * {@code cond_resched} at or after then, or -1 if that spin is over.
     */
    long spinCut(long id, long at);

    /** Spin {@code id} is asked to reschedule by the tick at {@code at}; as {@link #spinCut}. */
    long spinSliceEnds(long id, long at);

    /** Whether it spins for a mutex whose owner runs on another CPU. */
    boolean spinsOnRunningOwner();

    /** Asked to reschedule while it spins for the mutex, it sleeps on it from {@code t}. */
    void lockSleeps(long t);

    /** An interrupt took {@code ps} of the CPU while it waited for the mutex. */
    void interrupted(long ps);
  }

  /**
   * The CPU's interrupt path. Each method returns the time the interrupt ends, or -1 while a call
   * of it is out (its end then comes to {@link #irqReturned}).
   */
  public interface Irq<F, R, O> {
    /** A hard interrupt begins at {@code t}: the scheduler ticks that waited, then the timers. */
    long start(long t, List<F> fired, PendingTicks.Ticks ticks, O out);

    /** More expired timers, in the interrupt that runs. */
    long more(long t, List<F> fired, O out);

    /** ksoftirqd runs at {@code t}: preempting the task that scheduled, or on an idle CPU. */
    long startSoftirq(long t, List<R> raised, boolean preempts, O out);

    /** More of the CPU's list, raised while ksoftirqd ran. */
    long moreSoftirq(long t, List<R> raised, O out);

    /** ksoftirqd, done, switches back to the task it preempted. */
    long softirqSwitchBack(long t);

    /** Whether the running interrupt is ksoftirqd's. */
    boolean inSoftirq();
  }

  /** What the CPU does for its schedule: its steps, its own messages, its switch. */
  public interface Effects<S, O> {
    /** The time of step {@code m}. */
    long at(S m);

    /** The same step, taken later: after what ran first. */
    S retimed(S m, long t);

    /** The step of the task in {@code slot} back in user space at {@code t} (a syscall's end). */
    S returnsToUser(long t, int slot);

    /** The step of the task in {@code slot} at a {@code might_sleep} or {@code cond_resched}. */
    S mightSleep(long t, int slot);

    /** The tick at {@code at} that ends spin {@code spin} of the task in {@code slot}. */
    void sliceEndsAt(long at, long spin, int slot, O out);

    /** The scheduler tick's timer, rearmed. */
    void tickAt(TickSched next, O out);

    /** {@code __schedule}'s {@code context_switch} at {@code t}: what it takes, in ps. */
    long contextSwitch(long t);
  }

  private final String name;
  private final List<? extends Task<S, O>> tasks;
  private final Irq<F, R, O> irq;
  private final Ksoftirqd<R> ksoftirqd;
  private final Rq rq;
  private final Effects<S, O> fx;
  private final ArrayDeque<F> pendingIrqs = new ArrayDeque<>();

  /**
   * The scheduler ticks that fired while a call of the running task was out: they run in the
   * interrupt at the call's end.
   */
  private final PendingTicks pendingTicks = new PendingTicks();

  /** Where each task, by slot, goes on when it is picked again; null where it does not wait. */
  private final List<S> parked;

  private S stashed;
  private boolean inIrq;

  /** When the running interrupt began. */
  private long irqStartPs;

  /** The task that has the CPU (it runs, or a call of its is out), or null when none has. */
  private Task<S, O> current;

  /** When the CPU's last interrupt ended. */
  private long busyUntilPs;

  /**
   * The running thread turns in its empty loop from this time until its worker can run ({@link
   * UserThread#waitsForItsWorkerHere}); -1 when it does not.
   */
  private long emptyFromPs = -1;

  /** The last of those spins, which its slice's end names. */
  private long emptySpin;

  /**
   * The last spin for a mutex that a task woken behind it made the CPU time ({@link #woke}), which
   * its slice's end names.
   */
  private long mutexSpin;

  /**
   * @param name the CPU's name, for errors
   * @param tasks its tasks, each at the index of its {@link Task#slot}
   */
  public SchedCore(
      String name,
      List<? extends Task<S, O>> tasks,
      Irq<F, R, O> irq,
      Ksoftirqd<R> ksoftirqd,
      Rq rq,
      Effects<S, O> fx) {
    for (int i = 0; i < tasks.size(); i++) {
      if (tasks.get(i).slot() != i) {
        throw new IllegalArgumentException(name + ": " + tasks.get(i).comm() + " not in slot " + i);
      }
    }
    this.name = name;
    this.tasks = List.copyOf(tasks);
    this.irq = irq;
    this.ksoftirqd = ksoftirqd;
    this.rq = rq;
    this.fx = fx;
    this.parked = new ArrayList<>(Arrays.asList(newSteps(tasks.size())));
  }

  @SuppressWarnings("unchecked")
  private S[] newSteps(int n) {
    return (S[]) new Object[n];
  }

  /**
   * The threads start at {@code t}: t/io_uring's main thread made each on its own CPU (where it and
   * the new thread ran) and pinned it here, so each joins the run queue with the same debit; the
   * first it picks runs. Other tasks are made asleep (an io-wq worker by its thread's first punt,
   * {@code create_io_worker}; a dmsetup process by its first command) and join when woken.
   */
  public void start(long t, O out) {
    for (Task<S, O> task : tasks) {
      if (task instanceof UserThread) {
        task.sched(rq.forkPinned(task.comm(), t));
      }
    }
    dispatch(t, out);
    idleSoftirq(t, out);
  }

  /**
   * {@code task} was woken at {@code t} (a thread by another CPU's completion, a worker for work):
   * it runs if the CPU is idle, else when the run queue picks it.
   */
  public void wake(Task<S, O> task, long t, O out) {
    if (task.sched() == null) {
      task.sched(rq.fork(task.comm(), t)); // a worker's first wake-up: wake_up_new_task
    }
    rq.wakeUp(task.sched(), t);
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
  public void teardownPoll(UserThread<S, O> task, long t, O out) {
    if (tasks.size() == 1) {
      task.teardownPoll(t, out);
      return;
    }
    rq.wakeUp(task.sched(), t);
    task.waitsInTeardown();
    park(task, fx.mightSleep(t, task.slot()));
    if (current == null && !inIrq) {
      dispatch(freeFrom(t), out);
    } else if (!inIrq) {
      woke(t, out);
    }
  }

  /** The run queue's picture of the CPU's tasks. */
  public CfsRq runQueue() {
    return rq.cfs();
  }

  /** Nothing pending, nothing running: no interrupt was left unhandled. */
  public boolean idle() {
    return leftOver().isEmpty();
  }

  /** What is still pending or running on the CPU, for the books: empty when nothing is. */
  public String leftOver() {
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
    for (Task<S, O> task : tasks) {
      if (!(task instanceof UserThread) && parked(task)) {
        left.add(task.comm() + " runnable");
      }
    }
    return String.join(", ", left);
  }

  /**
   * The tag the task in {@code slot} slept for was freed, at {@code m}. Freed by this CPU's
   * interrupt, the woken task runs when the interrupt is over (it has the CPU still if the
   * interrupt came as it went to sleep).
   */
  public void tagWoken(int slot, S m, O out) {
    if (!inIrq) {
      step(slot, m, out);
      return;
    }
    Task<S, O> task = tasks.get(slot);
    if (task == current || arrives(task, m, out)) {
      stashed = m;
    }
  }

  /**
   * The task in {@code slot} sleeps for a tag, at {@code m}: the CPU is idle, and takes the
   * interrupts that waited.
   */
  public void slept(int slot, S m, O out) {
    tasks.get(slot).handle(m, out);
    if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
      // off the run queue first: a tag one of them frees wakes it as any sleeper, runnable again,
      // and with others on the CPU the run queue picks who runs after the interrupt
      leftCpu();
      startIrq(freeFrom(fx.at(m)), out);
    } else {
      idleSoftirq(fx.at(m), out);
    }
  }

  /** A step boundary of the task in {@code slot}, at {@code m}: pending interrupts run first. */
  public void step(int slot, S m, O out) {
    Task<S, O> task = tasks.get(slot);
    if (task != current && !arrives(task, m, out)) {
      return;
    }
    if (inIrq) { // the answer to a task that waited for a mutex, while an interrupt runs
      stashed = m;
      return;
    }
    if (!pendingIrqs.isEmpty() || !pendingTicks.isEmpty()) {
      stashed = m;
      startIrq(fx.at(m), out);
      return;
    }
    goesOn(m, out);
  }

  /**
   * A reply to {@code task}, which does not have the CPU: a wake-up (the tag it slept for), or,
   * alone on its CPU, its ring's teardown that polls again. It has the CPU now if the CPU is idle
   * or it is alone; else it waits in the run queue, to go on with {@code m} when it is picked.
   *
   * @return whether it has the CPU now
   */
  private boolean arrives(Task<S, O> task, S m, O out) {
    rq.wakeUp(task.sched(), fx.at(m));
    if (tasks.size() == 1) {
      if (task.sched().state() == SchedEntity.State.RUNNABLE) {
        rq.schedule(fx.at(m));
      }
      current = task;
      return true;
    }
    park(task, m);
    if (current == null && !inIrq) {
      dispatch(freeFrom(fx.at(m)), out);
    } else {
      woke(fx.at(m), out);
    }
    return false;
  }

  /** The task goes on with {@code m}; where it schedules, what waits for that runs first. */
  private void goesOn(S m, O out) {
    long t = fx.at(m);
    if (ksoftirqd.pending() && current.schedulesAt(m)) {
      stashed = m;
      inIrq = true;
      irqStartPs = t;
      ksoftirqd.runs(true);
      irqReturned(irq.startSoftirq(t, ksoftirqd.drain(), true, out), out);
      return;
    }
    if (current.preemptibleAt(m) && rq.needResched(t)) {
      switchFrom(m, out);
      return;
    }
    if (current instanceof UserThread<S, O> thread
        && thread.returnsToUserAt(m)
        && waitsForWorker(thread, t, out)) {
      return;
    }
    current.handle(m, out);
    if (spinsOnMutex() && rq.nrRunning() > 1) {
      woke(t, out); // it spins for a mutex while another task waits for the CPU
    }
    idleSoftirq(t, out);
  }

  /**
   * The running thread is back in user space at {@code t} with nothing to do until its io-wq
   * worker, on this CPU, runs: it turns in its empty loop, in closed form, until the tick at which
   * the run queue asks it to reschedule, or until the CPU has something to take at one of its
   * returns to user space ({@link #cutSpin}).
   *
   * @return whether it does
   */
  private boolean waitsForWorker(UserThread<S, O> thread, long t, O out) {
    if (!thread.waitsForItsWorkerHere()) {
      return false;
    }
    long until = rq.reschedTick(t);
    if (until == Long.MAX_VALUE || until <= t) {
      return false; // its worker is not runnable, or it switches now
    }
    emptyFromPs = t;
    fx.sliceEndsAt(until, ++emptySpin, thread.slot(), out);
    return true;
  }

  /**
   * The running thread's empty loop is brought up to {@code at}: the calls it made by then are
   * counted, and it turns on from the last.
   */
  public void catchUp(long at) {
    if (emptyFromPs >= 0 && at > emptyFromPs) {
      emptyFromPs = ((UserThread<S, O>) current).emptyEnters(emptyFromPs, at);
    }
  }

  /**
   * Its empty loop ends at the first return to user space at or after {@code at}: a step boundary,
   * where the thread goes on (or is switched out).
   */
  private void emptyEnds(long at, O out) {
    long t = ((UserThread<S, O>) current).emptyEnters(emptyFromPs, at);
    emptyFromPs = -1;
    step(current.slot(), fx.returnsToUser(t, current.slot()), out);
  }

  /** The tick that ends spin {@code id} of the task in {@code slot} came, at {@code at}. */
  public void sliceEnds(int slot, long id, long at, O out) {
    Task<S, O> task = tasks.get(slot);
    if (task == current && id == mutexSpin && spinsOnMutex() && rq.needResched(at)) {
      mutexSleeps(at, out);
    } else if (task instanceof KernelThread<S, O> worker) {
      spinEnded(slot, worker.spinSliceEnds(id, at), out);
    } else if (emptyFromPs >= 0 && id == emptySpin && task == current) {
      emptyEnds(at, out);
    }
  }

  /**
   * The spin of the worker in {@code slot} ended: it goes on at its first {@code cond_resched} at
   * {@code t}, a step boundary of the CPU (where it may be switched out); nothing if {@code t} is
   * -1, the spin having ended before.
   */
  public void spinEnded(int slot, long t, O out) {
    if (t >= 0) {
      step(slot, fx.mightSleep(t, slot), out);
    }
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
  private void switchFrom(S m, O out) {
    Task<S, O> prev = current;
    long t = fx.at(m);
    Task<S, O> next = taskOf(rq.schedule(t));
    if (next == prev) {
      prev.handle(m, out);
      idleSoftirq(t, out);
      return;
    }
    park(prev, m);
    t += fx.contextSwitch(t);
    current = next;
    resume(next, t, out);
  }

  /** The run queue picks the task to run at {@code t} on an idle CPU; it goes on. */
  private void dispatch(long t, O out) {
    current = taskOf(rq.schedule(t));
    if (current != null) {
      resume(current, t, out);
    }
  }

  /** {@code task} has the CPU from {@code t}: it starts, is switched back in, or goes on. */
  private void resume(Task<S, O> task, long t, O out) {
    if (parked(task)) {
      S m = fx.retimed(parked.get(task.slot()), t);
      parked.set(task.slot(), null);
      step(task.slot(), m, out);
      return;
    }
    task.resume(t, out);
    idleSoftirq(t, out);
  }

  /** The task waits for the CPU with {@code m}, a step it goes on with when it is picked. */
  private void park(Task<S, O> task, S m) {
    S before = parked.get(task.slot());
    if (before != null) {
      throw new IllegalStateException(
          task.comm() + " on " + name + " parked " + m + " over " + before);
    }
    parked.set(task.slot(), m);
  }

  /** Whether {@code task} waits to go on where it was switched out. */
  private boolean parked(Task<S, O> task) {
    return parked.get(task.slot()) != null;
  }

  private Task<S, O> taskOf(SchedEntity se) {
    if (se == null) {
      return null;
    }
    for (Task<S, O> task : tasks) {
      if (task.sched() == se) {
        return task;
      }
    }
    throw new IllegalStateException(name + ": picked " + se + ", not a task of its own");
  }

  /**
   * The running task, if it went to sleep or ended its work (no call of its is out), leaves the
   * CPU: the run queue dequeues it.
   */
  private void leftCpu() {
    if (current == null || stashed != null || current.inFlight()) {
      return;
    }
    if (current.sched().state() == SchedEntity.State.RUNNING) {
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
    for (Task<S, O> task : tasks) {
      if (task instanceof UserThread) {
        threads = true;
        if (!task.exiting()) {
          return false;
        }
      }
    }
    return threads || tasks.size() == 1;
  }

  /** Tasks an interrupt here woke from their sleep are runnable again. */
  private void wakeWoken(long t) {
    for (Task<S, O> task : tasks) {
      if (task.sched() != null
          && task.sched().state() == SchedEntity.State.SLEEPING
          && task.woken()) {
        rq.wakeUp(task.sched(), t);
      }
    }
  }

  /**
   * The CPU may be idle at {@code t} (its task asleep or ended): a runnable ksoftirqd runs now,
   * else the next task the run queue has.
   */
  public void idleSoftirq(long t, O out) {
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
    for (Task<S, O> task : tasks) {
      free = Math.max(free, task.freeAtPs());
    }
    return Math.max(t, free);
  }

  /** Nothing runs on the CPU: its tasks sleep or ended, and no interrupt runs. */
  private boolean idleNow() {
    if (inIrq || stashed != null || current != null) {
      return false;
    }
    for (Task<S, O> task : tasks) {
      if (task.inFlight() && !parked(task)) { // a parked one waits to be picked
        return false;
      }
    }
    return true;
  }

  /**
   * The tick's timer fired: it interrupts the running task's work at its next step boundary. A CPU
   * whose tasks sleep is idle and does not tick (CONFIG_NO_HZ_IDLE); one whose threads have ended
   * stops.
   */
  public void tick(TickSched timer, O out) {
    if (allExiting()) {
      return;
    }
    boolean busy = current != null && current.inFlight();
    boolean balance = timer.balances(busy);
    boolean vmstat = timer.firesVmstat(busy);
    if (timer.rearms()) {
      fx.tickAt(timer.next(balance, vmstat), out);
    }
    if (busy) {
      pendingTicks.add(balance, vmstat);
      // the tick that ends a spinner's slice comes as this one, or is this one's check
      cutSpin(timer.atPs(), rq.reschedTick(timer.atPs()) <= timer.atPs(), out);
    }
  }

  /** A device raised BLOCK_SOFTIRQ here at {@code t}: ksoftirqd is runnable. */
  public void softirqRaised(R raised, long t, O out) {
    ksoftirqd.raised(raised);
    idleSoftirq(t, out);
    cutSpin(t, false, out);
  }

  /** A device's timer fired here at {@code t}: a hard interrupt, now or at the next boundary. */
  public void timerFired(F fired, long t, O out) {
    pendingIrqs.add(fired);
    if (idleNow()) {
      startIrq(freeFrom(t), out);
    } else if (waitsForMutex()) {
      // the task spins or sleeps on a mutex: the CPU takes the interrupt now
      startIrq(freeFrom(t), out);
    } else {
      cutSpin(t, false, out);
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
    return waitsForMutex()
        && current instanceof KernelThread<S, O> worker
        && worker.spinsOnRunningOwner();
  }

  /** A hard interrupt begins at {@code t}: the timers and ticks that wait. */
  private void startIrq(long t, O out) {
    inIrq = true;
    irqStartPs = t;
    irqReturned(irq.start(t, drainPending(), pendingTicks.drain(), out), out);
  }

  /**
   * A spinning task is cut at its next point of preemption after {@code t} (an io-wq worker's
   * {@code cond_resched}, a thread's return to user space): something the CPU takes there came (an
   * interrupt, a tick, ksoftirqd, a wake-up that preempts it); {@code slice} when that is the tick
   * that ends its slice.
   */
  private void cutSpin(long t, boolean slice, O out) {
    if (current == null || inIrq || stashed != null) {
      return;
    }
    if (emptyFromPs >= 0) {
      emptyEnds(t, out);
      return;
    }
    if (!(current instanceof KernelThread<S, O> worker)) {
      return;
    }
    long id = worker.spinning();
    if (id >= 0) {
      spinEnded(current.slot(), slice ? worker.spinSliceEnds(id, t) : worker.spinCut(id, t), out);
    }
  }

  /**
   * Another task of this CPU became runnable at {@code t}: a spinning worker it preempts stops at
   * once; one that spins for its ring's {@code uring_lock} sleeps on the mutex, and the run queue
   * picks who runs.
   */
  private void woke(long t, O out) {
    if (!spinsOnMutex()) {
      if (rq.cfs().needResched()) {
        cutSpin(t, false, out);
      } else if (allExiting()) {
        sliceEndsWithoutTick(t, out);
      }
    } else if (rq.cfs().needResched()) {
      mutexSleeps(Math.max(t, busyUntilPs), out);
    } else {
      // it spins on until the tick that ends its slice, which the run queue names
      long until = rq.reschedTick(t);
      if (until != Long.MAX_VALUE) {
        fx.sliceEndsAt(Math.max(t, until), ++mutexSpin, current.slot(), out);
      }
    }
  }

  /**
   * The CPU's threads have ended, so its tick no longer comes ({@link #tick}) to end a worker's
   * spin for a tag: the tick at which the run queue would ask the spinner to reschedule, now that
   * another task waits, comes as its own message. Without it a worker spinning beside the ring's
   * teardown, for a tag that only the teardown's poll frees, would spin for ever.
   */
  private void sliceEndsWithoutTick(long t, O out) {
    if (!(current instanceof KernelThread<S, O> worker)) {
      return;
    }
    long id = worker.spinning();
    long until = rq.reschedTick(t);
    if (id >= 0 && until != Long.MAX_VALUE) {
      fx.sliceEndsAt(Math.max(t, until), id, current.slot(), out);
    }
  }

  /**
   * The running task, spinning for a mutex (an io-wq worker for its ring's {@code uring_lock}), is
   * asked to reschedule at {@code t}: the mutex's optimistic spin ends, it sleeps on the mutex
   * until the lock is granted, and the run queue picks who runs.
   */
  private void mutexSleeps(long t, O out) {
    ((KernelThread<S, O>) current).lockSleeps(t);
    leftCpu();
    dispatch(freeFrom(t), out);
  }

  /**
   * The interrupt path returned {@code endPs} (an interrupt's call came back, or its work was done
   * at once), or -1 while a call of it is out.
   */
  public void irqReturned(long endPs, O out) {
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
    if (current instanceof KernelThread<S, O> worker && worker.waitsInterruptibly()) {
      worker.interrupted(endPs - irqStartPs);
    }
    busyUntilPs = Math.max(busyUntilPs, endPs);
    backToTasks(endPs, out);
  }

  /**
   * The CPU is the tasks' again at {@code t}: the running one goes on where it was, or the run
   * queue picks one (one an interrupt woke), or, with none runnable, the CPU idles.
   */
  private void backToTasks(long t, O out) {
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
      S m = fx.retimed(stashed, t);
      stashed = null;
      step(current.slot(), m, out);
    } else if (current == null && rq.nrRunning() > 0) {
      dispatch(t, out);
    } else {
      idleSoftirq(t, out);
    }
  }

  private List<F> drainPending() {
    List<F> drained = new ArrayList<>(pendingIrqs);
    pendingIrqs.clear();
    return drained;
  }
}

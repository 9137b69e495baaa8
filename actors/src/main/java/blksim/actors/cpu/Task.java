package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.queues.kernel.sched.SchedEntity;

/**
 * One task of a CPU ({@code struct task_struct}): one of t/io_uring's submitter threads ({@link
 * SubmitterThread}), a thread's io-wq worker ({@link IoWqWorker}) or a {@code dmsetup} process
 * ({@link DmSetup}), each with its own state, its place in the CPU's run queue and, while another
 * task has the CPU, where it will go on. The CPU's schedule ({@link CpuSchedule}) treats every kind
 * alike: each runs, makes calls, sleeps, is woken and is switched where the kernel would; what
 * differs is where each kind may be switched, which each says.
 */
public abstract sealed class Task permits SubmitterThread, IoWqWorker, DmSetup {
  /**
   * Its place on the CPU: its threads first, in thread order, then its io-wq workers, then its
   * dmsetup processes.
   */
  final int slot;

  /** Its entity in the CPU's run queue, from its fork on. */
  SchedEntity se;

  /** The reply it was switched out at, to go on with when it is picked again; or null. */
  private SimMessage parked;

  Task(int slot) {
    this.slot = slot;
  }

  /**
   * The task, not {@link #parked}, has the CPU from {@code t}: it starts, or is switched back in
   * after the sleep that a wake-up (a completion, work, a tag, a command) ended.
   */
  abstract void resume(long t, Outbox out);

  /** The reply to the call the task has out, at a step boundary of the CPU. */
  abstract void handle(SimMessage m, Outbox out);

  /**
   * Whether the task reaches a point where the CPU schedules at {@code m}: a thread's return to
   * user space or a {@code might_sleep}, a worker's {@code cond_resched}. ksoftirqd runs there.
   */
  abstract boolean schedulesAt(SimMessage m);

  /** Whether the task switches at {@code m} when the run queue asks it to. */
  abstract boolean preemptibleAt(SimMessage m);

  /** A call of the task is out: the CPU is busy with it until the reply comes back. */
  abstract boolean inFlight();

  /** A wake-up ended the task's sleep, and it has not run since. */
  abstract boolean woken();

  /** From when the CPU is free of the task's work (asleep, or ended). */
  public abstract long freeAtPs();

  /** The task's name, as {@code comm}: t/io_uring's threads have the tool's, workers io_uring's. */
  abstract String comm();

  /** The CPU it runs on. */
  public abstract int cpu();

  /**
   * Its call is out but it waits in a way that lets the CPU take interrupts meanwhile: a worker
   * spinning on, or asleep for, its ring's {@code uring_lock}.
   */
  boolean waitsInterruptibly() {
    return false;
  }

  /** A thread that has ended its loop (no other kind ends). */
  boolean exiting() {
    return false;
  }

  /** It has nothing left to do, for good: a thread ended with nothing in the kernel. */
  boolean done() {
    return false;
  }

  /** The task waits for the CPU with {@code m}, a reply it goes on with when it is picked. */
  final void park(SimMessage m) {
    if (parked != null) {
      throw new IllegalStateException(
          comm() + " on cpu" + cpu() + " parked " + m + " over " + parked);
    }
    parked = m;
  }

  /** The reply it was parked with, at {@code t}, when it was picked. */
  final SimMessage unpark(long t) {
    SimMessage m = StashedReply.at(parked, t);
    parked = null;
    return m;
  }

  /** Whether it waits to go on where it was switched out. */
  final boolean parked() {
    return parked != null;
  }

  /** What it ran and waited on its CPU's run queue, or null if it never ran. */
  public final SchedEntity sched() {
    return se;
  }
}

package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.queues.books.Books;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.kernel.sched.SchedEntity;
import blksim.queues.tiouring.Submitter;
import org.HdrHistogram.Histogram;

/**
 * One task of a CPU ({@code struct task_struct}): one of t/io_uring's submitter threads (its loop,
 * its ring), a thread's io-wq worker ({@link IoWqWorker}) or a {@code dmsetup} process ({@link
 * DmSetup}), with its place in the CPU's run queue and, while another task has the CPU, where it
 * will go on. The CPU's schedule treats every kind alike: each runs, makes calls, sleeps, is woken
 * and is switched where the kernel would.
 */
public final class Task {
  /**
   * Its place on the CPU: its threads first, in thread order, then its io-wq workers, then its
   * dmsetup processes.
   */
  final int slot;

  /** A thread's core; null for an io-wq worker. */
  final CpuCore core;

  /** A thread's io_uring side (which its preadv2 and libaio loops share); null for a worker. */
  final SubmitterPath thread;

  /** A thread's loop; null for a worker. */
  final ThreadLoop run;

  /** An io-wq worker; null for another kind. */
  final IoWqWorker worker;

  /** A dmsetup process; null for another kind. */
  final DmSetup dmsetup;

  /** Its entity in the CPU's run queue, from its fork on. */
  SchedEntity se;

  /** The reply it was switched out at, to go on with when it is picked again; or null. */
  private SimMessage parked;

  private boolean started;

  /** A submitter thread, whose core is {@code core}. */
  Task(CpuCore core) {
    this.slot = core.slot;
    this.core = core;
    core.task = this;
    this.thread = new SubmitterPath(core);
    this.run =
        core.cfg.syncIo()
            ? new SyncReadPath(core, thread)
            : core.cfg.aio() ? new AioPath(core, thread) : thread;
    this.worker = null;
    this.dmsetup = null;
  }

  /** An io-wq worker. */
  Task(IoWqWorker worker) {
    this.slot = worker.slot();
    this.core = null;
    this.thread = null;
    this.run = null;
    this.worker = worker;
    this.dmsetup = null;
    worker.task = this;
    this.started = true; // it runs once woken for work
  }

  /** A dmsetup process. */
  Task(DmSetup dmsetup) {
    this.slot = dmsetup.slot();
    this.core = null;
    this.thread = null;
    this.run = null;
    this.worker = null;
    this.dmsetup = dmsetup;
    dmsetup.task = this;
    this.started = true; // it runs once woken by a command
  }

  /**
   * The task, not {@link #parked}, has the CPU from {@code t}: it starts its loop, or is switched
   * back into the sleep that a completion (a worker: work, or a tag) ended.
   */
  void resume(long t, Outbox out) {
    if (!started) {
      started = true;
      run.pass(t, out);
    } else if (worker != null) {
      worker.switchedIn(t, out);
    } else if (dmsetup != null) {
      dmsetup.switchedIn(t, out);
    } else if (thread.loop().woken()) {
      run.wake(t, out);
    } else {
      throw new IllegalStateException(cpuName() + ": " + comm() + " picked with no work");
    }
  }

  /** The reply to the call the task has out, at a step boundary of the CPU. */
  void handle(SimMessage m, Outbox out) {
    if (worker != null) {
      worker.handle(m, out);
    } else if (dmsetup != null) {
      dmsetup.handle(m, out);
    } else {
      run.handle(m, out);
    }
  }

  /** The task waits for the CPU with {@code m}, a reply it goes on with when it is picked. */
  void park(SimMessage m) {
    if (parked != null) {
      throw new IllegalStateException(
          cpuName() + ": " + comm() + " parked " + m + " over " + parked);
    }
    parked = m;
  }

  /** The reply it was parked with, at {@code t}, when it was picked. */
  SimMessage unpark(long t) {
    SimMessage m = StashedReply.at(parked, t);
    parked = null;
    return m;
  }

  /** Whether it waits to go on where it was switched out. */
  boolean parked() {
    return parked != null;
  }

  /**
   * Whether the task reaches a point where the CPU schedules at {@code m}: a thread's return to
   * user space or a {@code might_sleep}, a worker's {@code cond_resched}. ksoftirqd runs there.
   * dmsetup runs its command through to its sleep.
   */
  boolean schedulesAt(SimMessage m) {
    if (dmsetup != null) {
      return false;
    }
    return worker != null ? worker.condReschedAt(m) : Ksoftirqd.schedulesAt(m);
  }

  /**
   * Whether the task switches at {@code m} when the run queue asks it to: a thread at its return to
   * user space (at io_iopoll_check's {@code might_sleep} it only stops polling), or, exited, at its
   * ring's teardown's {@code cond_resched}; a worker at its {@code cond_resched}.
   */
  boolean preemptibleAt(SimMessage m) {
    if (dmsetup != null) {
      return false;
    }
    if (worker != null) {
      return worker.condReschedAt(m);
    }
    return m instanceof Cpu.Resume || m instanceof Cpu.Resched && thread.exiting();
  }

  /** A call of the task is out: the CPU is busy with it until the reply comes back. */
  boolean inFlight() {
    if (dmsetup != null) {
      return dmsetup.inFlight();
    }
    return worker != null ? worker.inFlight() : thread.inFlight();
  }

  /**
   * Its call is out but it waits in a way that lets the CPU take interrupts meanwhile: a worker
   * spinning on, or asleep for, its ring's {@code uring_lock}.
   */
  boolean waitsInterruptibly() {
    return worker != null && worker.waitsForLock();
  }

  /** From when the CPU is free of the task's work (asleep, or ended). */
  public long freeAtPs() {
    if (dmsetup != null) {
      return dmsetup.freeAtPs();
    }
    return worker != null ? worker.freeAtPs() : thread.freeAtPs();
  }

  /** A thread that has ended its loop (a worker never does). */
  boolean exiting() {
    return thread != null && thread.exiting();
  }

  /** A completion, work or a command woke the task from its sleep, and it has not run since. */
  boolean woken() {
    if (dmsetup != null) {
      return dmsetup.woken();
    }
    return worker != null ? worker.woken() : thread.loop().woken();
  }

  /** It has nothing left to do, for good: a thread ended with nothing in the kernel. */
  boolean done() {
    return thread != null && thread.done();
  }

  /** The task's name, as {@code comm}: t/io_uring's threads have the tool's, workers io_uring's. */
  String comm() {
    if (dmsetup != null) {
      return "dmsetup";
    }
    return worker != null ? "iou-wrk-" + worker.thread() : "submitter" + core.cfg.submitter();
  }

  private String cpuName() {
    if (dmsetup != null) {
      return dmsetup.name();
    }
    return core != null ? core.self.name() : worker.name();
  }

  /** Checks what the task left in the kernel. */
  void audit(Books books, String name) {
    if (worker != null) {
      worker.audit(books);
    } else if (dmsetup != null) {
      dmsetup.audit(books);
    } else {
      run.audit(books, name);
    }
  }

  /** The t/io_uring thread this is, or whose io-wq worker it is. */
  public int submitterIndex() {
    return worker != null ? worker.thread() : core.cfg.submitter();
  }

  /** Whether this is one of t/io_uring's submitter threads. */
  public boolean isThread() {
    return thread != null;
  }

  /** Whether this is an io-wq worker. */
  public boolean isWorker() {
    return worker != null;
  }

  /** The io-wq worker this is, or null. */
  public IoWqWorker ioWqWorker() {
    return worker;
  }

  /** The CPU it runs on. */
  public int cpu() {
    if (dmsetup != null) {
      return dmsetup.index();
    }
    return core != null ? core.index : worker.index();
  }

  public Submitter submitter() {
    return core.sub;
  }

  public IoRingCtx ring() {
    return core.ring;
  }

  /** Submit-to-reap latency of every I/O reaped, in ns. */
  public Histogram latencyNs() {
    return core.latencyNs;
  }

  /** When the thread ended, in virtual time. */
  public long exitedAtPs() {
    return thread.exitedAtPs();
  }

  /** Reads the kernel took: SQEs, iocbs or preadv2 calls. */
  public long accepted() {
    return core.accepted();
  }

  /** Reads the kernel completed. */
  public long completed() {
    return core.completed();
  }

  /** What it ran and waited on its CPU's run queue. */
  public SchedEntity sched() {
    return se;
  }
}

package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.kernel.sched.SchedEntity;
import blksim.queues.tiouring.Submitter;
import org.HdrHistogram.Histogram;

/**
 * One of t/io_uring's submitter threads on its CPU ({@code struct task_struct}): its loop, its
 * ring, its place in the CPU's run queue, and, while another task has the CPU, where it will go on.
 */
public final class Task {
  final CpuCore core;
  final SubmitterPath thread;
  final ThreadLoop run;

  /** Its entity in the CPU's run queue, from its fork on. */
  SchedEntity se;

  /** The reply it was switched out at, to go on with when it is picked again; or null. */
  private SimMessage parked;

  private boolean started;

  Task(CpuCore core) {
    this.core = core;
    core.task = this;
    this.thread = new SubmitterPath(core);
    this.run =
        core.cfg.syncIo()
            ? new SyncReadPath(core, thread)
            : core.cfg.aio() ? new AioPath(core, thread) : thread;
  }

  /**
   * The task, not {@link #parked}, has the CPU from {@code t}: it starts its loop, or is switched
   * back into the sleep that a completion ended.
   */
  void resume(long t, Outbox out) {
    if (!started) {
      started = true;
      run.pass(t, out);
    } else if (thread.loop().woken()) {
      run.wake(t, out);
    } else {
      throw new IllegalStateException(core.self.name() + ": " + comm() + " picked with no work");
    }
  }

  /** The task waits for the CPU with {@code m}, a reply it goes on with when it is picked. */
  void park(SimMessage m) {
    if (parked != null) {
      throw new IllegalStateException(
          core.self.name() + ": " + comm() + " parked " + m + " over " + parked);
    }
    parked = m;
  }

  /** The reply it was parked with, at {@code t}, when it was picked. */
  SimMessage unpark(long t) {
    SimMessage m = StashedReply.at(parked, t);
    parked = null;
    return m;
  }

  /** The thread's name, as {@code comm}: t/io_uring's submitter threads have the tool's. */
  String comm() {
    return "submitter" + core.cfg.submitter();
  }

  /** The t/io_uring thread this is. */
  public int submitterIndex() {
    return core.cfg.submitter();
  }

  /** The CPU it runs on. */
  public int cpu() {
    return core.index;
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

  /** When its last work on the CPU ended (it went to sleep, or its ring's teardown was done). */
  public long freeAtPs() {
    return thread.freeAtPs();
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

  /** Whether it waits to go on where it was switched out. */
  boolean parked() {
    return parked != null;
  }
}

package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.queues.books.Books;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.kernel.sched.SchedCore;
import blksim.queues.tiouring.Submitter;
import org.HdrHistogram.Histogram;

/**
 * One of t/io_uring's submitter threads, a task of the CPU it is pinned to ({@link Task}): its core
 * (its ring, its submitter, its latency), its io_uring side ({@link SubmitterPath}), and the loop
 * that drives it: io_uring's own, or the preadv2 or libaio loop on top of it.
 */
public final class SubmitterThread extends Task
    implements SchedCore.UserThread<SimMessage, Outbox> {
  /** Its ring, submitter and costs. */
  final CpuCore core;

  /** Its io_uring side, which its preadv2 and libaio loops share. */
  final SubmitterPath path;

  /** Its loop. */
  final ThreadLoop run;

  private boolean started;

  SubmitterThread(CpuCore core) {
    super(core.slot);
    this.core = core;
    core.task = this;
    this.path = new SubmitterPath(core);
    this.run =
        core.cfg.syncIo()
            ? new SyncReadPath(core, path)
            : core.cfg.aio() ? new AioPath(core, path) : path;
  }

  /** It starts its loop, or is switched back into the sleep that a completion ended. */
  @Override
  public void resume(long t, Outbox out) {
    if (!started) {
      started = true;
      run.pass(t, out);
    } else if (path.loop().woken()) {
      run.wake(t, out);
    } else {
      throw new IllegalStateException(core.self.name() + ": " + comm() + " picked with no work");
    }
  }

  @Override
  public void handle(SimMessage m, Outbox out) {
    run.handle(m, out);
  }

  /**
   * Where it schedules: its syscall returns to user space, or it reaches a {@code might_sleep}
   * (io_iopoll_check's {@code mutex_lock}, its ring's teardown's {@code cond_resched}).
   */
  @Override
  public boolean schedulesAt(SimMessage m) {
    return m instanceof Cpu.Resume || m instanceof Cpu.Resched;
  }

  /** Where it schedules, if its loop may switch there ({@link EnterLoop#preemptibleAt}). */
  @Override
  public boolean preemptibleAt(SimMessage m) {
    return schedulesAt(m) && path.loop().preemptibleAt(m instanceof Cpu.Resume);
  }

  @Override
  public boolean inFlight() {
    return path.inFlight();
  }

  @Override
  public boolean woken() {
    return path.loop().woken();
  }

  @Override
  public long freeAtPs() {
    return path.freeAtPs();
  }

  @Override
  public String comm() {
    return "submitter" + core.cfg.submitter();
  }

  @Override
  public int cpu() {
    return core.index;
  }

  @Override
  public boolean exiting() {
    return path.exiting();
  }

  @Override
  public boolean done() {
    return path.done();
  }

  /** Its io_uring_enter returns to user space. */
  @Override
  public boolean returnsToUserAt(SimMessage m) {
    return m instanceof Cpu.Resume;
  }

  @Override
  public boolean waitsForItsWorkerHere() {
    return path.waitsForItsWorkerHere();
  }

  @Override
  public long emptyEnters(long fromPs, long untilPs) {
    return path.emptyEnters(fromPs, untilPs);
  }

  @Override
  public void teardownPoll(long t, Outbox out) {
    path.teardownPoll(t, out);
  }

  @Override
  public void waitsInTeardown() {
    path.loop().to(EnterLoop.Phase.RESCHED);
  }

  /** Checks what the thread left in the kernel; {@code name} is its name in the books. */
  void audit(Books books, String name) {
    run.audit(books, name);
  }

  /** The t/io_uring thread this is. */
  public int submitterIndex() {
    return core.cfg.submitter();
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
    return path.exitedAtPs();
  }

  /** Reads the kernel took: SQEs, iocbs or preadv2 calls. */
  public long accepted() {
    return core.accepted();
  }

  /** Reads the kernel completed. */
  public long completed() {
    return core.completed();
  }
}

package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.queues.kernel.sched.SchedCore;
import blksim.queues.kernel.sched.SchedEntity;

/**
 * One task of a CPU ({@code struct task_struct}): one of t/io_uring's submitter threads ({@link
 * SubmitterThread}), a thread's io-wq worker ({@link IoWqWorker}) or a {@code dmsetup} process
 * ({@link DmSetup}), each with its own state and its place in the CPU's run queue. The CPU's
 * schedule ({@link SchedCore}) treats every kind alike: each runs, makes calls, sleeps, is woken
 * and is switched where the kernel would; what differs is where each kind may be switched, which
 * each says.
 */
public abstract sealed class Task implements SchedCore.Task<SimMessage, Outbox>
    permits SubmitterThread, IoWqWorker, DmSetup {
  /**
   * Its place on the CPU: its threads first, in thread order, then its io-wq workers, then its
   * dmsetup processes.
   */
  final int slot;

  /** Its entity in the CPU's run queue, from its fork on. */
  private SchedEntity se;

  Task(int slot) {
    this.slot = slot;
  }

  @Override
  public final int slot() {
    return slot;
  }

  /** The CPU it runs on. */
  public abstract int cpu();

  /** What it ran and waited on its CPU's run queue, or null if it never ran. */
  @Override
  public final SchedEntity sched() {
    return se;
  }

  @Override
  public final void sched(SchedEntity se) {
    this.se = se;
  }
}

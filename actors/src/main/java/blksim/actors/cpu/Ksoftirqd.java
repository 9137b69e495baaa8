package blksim.actors.cpu;

import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.SimMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * A CPU's {@code blk_cpu_done} and its ksoftirqd (kernel/softirq.c, block/blk-mq.c, 5.16). A raise
 * from task context wakes ksoftirqd, and while it is runnable neither an interrupt's exit nor a
 * {@code local_bh_enable} runs the softirq ({@code ksoftirqd_running}): ksoftirqd does, when the
 * CPU next schedules. Under CONFIG_PREEMPT_VOLUNTARY that is where the thread sleeps, where the
 * syscall returns to user space with TIF_NEED_RESCHED set (the wakeup preempts, as a task that
 * slept a while has the smaller vruntime), or at a {@code might_sleep} such as {@code
 * io_iopoll_check}'s {@code mutex_lock}.
 */
final class Ksoftirqd {
  private final List<NullBlkActor.SoftirqRaised> raised = new ArrayList<>();
  private boolean preempted;

  /** {@code blk_mq_raise_softirq} put requests on this CPU's list. */
  void raised(NullBlkActor.SoftirqRaised m) {
    raised.add(m);
  }

  /** Whether requests wait on the list: ksoftirqd is runnable. */
  boolean pending() {
    return !raised.isEmpty();
  }

  /** {@code llist_del_all}: everything on the list, oldest first. */
  List<NullBlkActor.SoftirqRaised> drain() {
    List<NullBlkActor.SoftirqRaised> all = new ArrayList<>(raised);
    raised.clear();
    return all;
  }

  /**
   * Whether the thread schedules at {@code m}: its syscall returns, or it reaches a might_sleep.
   */
  static boolean schedulesAt(SimMessage m) {
    return m instanceof Cpu.Resume || m instanceof Cpu.Resched;
  }

  /** ksoftirqd preempts the runnable thread (true), or runs while it sleeps (false). */
  void runs(boolean preempting) {
    preempted = preempting;
  }

  /** Whether the run that ends preempted the thread, which is switched back in; then forgets it. */
  boolean switchBack() {
    boolean was = preempted;
    preempted = false;
    return was;
  }
}

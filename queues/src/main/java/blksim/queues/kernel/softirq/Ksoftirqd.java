package blksim.queues.kernel.softirq;

import java.util.ArrayList;
import java.util.List;

/**
 * A CPU's {@code blk_cpu_done} list and its ksoftirqd (kernel/softirq.c, block/blk-mq.c, 5.16),
 * whatever the raised requests are ({@code R}). A raise from task context wakes ksoftirqd, and
 * while it is runnable neither an interrupt's exit nor a {@code local_bh_enable} runs the softirq
 * ({@code ksoftirqd_running}): ksoftirqd does, when the CPU next schedules. Under
 * CONFIG_PREEMPT_VOLUNTARY that is where the task sleeps, where the syscall returns to user space
 * with TIF_NEED_RESCHED set (the wake-up preempts, as a task that slept a while has the smaller
 * vruntime), or at a {@code might_sleep} such as {@code io_iopoll_check}'s {@code mutex_lock};
 * where each task reaches such a point is the task's to say.
 *
 * @param <R> what a raise put on the list
 */
public final class Ksoftirqd<R> {
  private final List<R> raised = new ArrayList<>();
  private boolean preempted;

  /** {@code blk_mq_raise_softirq} put requests on this CPU's list. */
  public void raised(R r) {
    raised.add(r);
  }

  /** Whether requests wait on the list: ksoftirqd is runnable. */
  public boolean pending() {
    return !raised.isEmpty();
  }

  /**
   * {@code blk_complete_reqs}: {@code llist_del_all} takes everything on the list, and {@code
   * llist_reverse_order} gives it oldest first.
   */
  public List<R> drain() {
    List<R> all = new ArrayList<>(raised);
    raised.clear();
    return all;
  }

  /** ksoftirqd preempts the runnable task (true), or runs while the task sleeps (false). */
  public void runs(boolean preempting) {
    preempted = preempting;
  }

  /**
   * Whether the run that ends preempted the task, which is then switched back in (a second switch
   * to pay); it forgets the run either way.
   */
  public boolean switchBack() {
    boolean was = preempted;
    preempted = false;
    return was;
  }
}

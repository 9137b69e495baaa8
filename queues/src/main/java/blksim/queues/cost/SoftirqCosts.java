package blksim.queues.cost;

/**
 * What BLOCK_SOFTIRQ costs (null_blk irqmode=1 on a tag set of one hardware queue), counted from
 * 5.16's block/blk-mq.c and kernel/softirq.c (docs/kernel.md section 13). {@link PathCosts} calls
 * it. The context switches to ksoftirqd and back are the profile's {@code __schedule}.
 *
 * <ul>
 *   <li>{@code blk_mq_raise_softirq}, a request: a call, {@code llist_add}'s cmpxchg, the per-CPU
 *       list head.
 *   <li>{@code raise_softirq}, the first on an empty list: interrupts saved around the pending
 *       bit's store, {@code in_interrupt}'s preempt count.
 *   <li>{@code run_ksoftirqd}, a pass: {@code smpboot_thread_fn}'s checks and {@code
 *       set_current_state} (an atomic), {@code run_ksoftirqd} and {@code __do_softirq} (three
 *       calls, the action's indirect one among them; interrupts off and on twice; the pending mask
 *       read and cleared).
 *   <li>{@code blk_done_softirq}, a pass: {@code llist_del_all}'s xchg, the list head.
 *   <li>{@code null_complete_rq}, a request: its {@code ->complete}, indirect, and {@code end_cmd}
 *       (two calls), the list's next pointer and {@code rq->q} (two loads).
 * </ul>
 */
final class SoftirqCosts {
  private SoftirqCosts() {}

  static void price(PathCosts c, double call, double l1, double atomic, double irq, double store) {
    c.set(KernelFn.BLK_MQ_RAISE_SOFTIRQ, call + atomic + l1);
    c.set(KernelFn.RAISE_SOFTIRQ, irq + store + l1);
    c.set(KernelFn.RUN_KSOFTIRQD, 3 * call + atomic + 2 * irq + 4 * l1 + 2 * store);
    c.set(KernelFn.BLK_DONE_SOFTIRQ, call + atomic + l1);
    c.set(KernelFn.NULL_COMPLETE_RQ, 2 * call + 2 * l1);
  }
}

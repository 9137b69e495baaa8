package blksim.actors.cpu;

import blksim.queues.block.fops.BlkdevDirectIoSimple;
import blksim.queues.cost.KernelFn;
import blksim.queues.fs.aio.AioKiocb;
import blksim.queues.fs.aio.IoSubmit;
import blksim.queues.fs.aio.ReadEvents;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.IoUringEnter;
import blksim.queues.io_uring.Iopoll;

/**
 * The kernel functions the CPU's stretches of the path that have no model of their own run (io-wq's
 * worker, interrupts), in order, each a table. io_uring's are beside the code that charges them
 * ({@link IoUringEnter}, {@link Iopoll}, {@link IoRw}), libaio's beside fs/aio.c's ({@link
 * IoSubmit}, {@link ReadEvents}, {@link AioKiocb}) and preadv2's beside block/fops.c's ({@link
 * BlkdevDirectIoSimple}); the three of {@link IoRw} that these paths run too are named here as
 * well.
 */
final class CpuPaths {
  private CpuPaths() {}

  /** The user pages of a bio ({@link IoRw#PAGES_PATH}). */
  static final KernelFn[] PAGES_PATH = IoRw.PAGES_PATH;

  /** bio_endio to ki_complete on an IOPOLL ring, per bio ({@link IoRw#END_IO_PATH}). */
  static final KernelFn[] END_IO_PATH = IoRw.END_IO_PATH;

  /** bio_endio to io_complete_rw, which queues task_work, per bio ({@link IoRw#IRQ_END_PATH}). */
  static final KernelFn[] IRQ_END_PATH = IoRw.IRQ_END_PATH;

  /**
   * A request whose bio found no tag: the bio ends with -EAGAIN, io_read sets up async data, and
   * the request is queued for io-wq; per request.
   */
  static final KernelFn[] PUNT_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC,
    KernelFn.BIO_RELEASE_PAGES,
    KernelFn.IO_SETUP_ASYNC_RW,
    KernelFn.IO_QUEUE_ASYNC_WORK
  };

  /**
   * The io-wq worker's issue of a request, up to the bio allocation: no io_submit_sqes and no file
   * reference, the request has them; no prep and no import, its async data holds the iterator.
   */
  static final KernelFn[] WORKER_ISSUE_PATH = {
    KernelFn.IO_WQ_SUBMIT_WORK,
    KernelFn.IO_ISSUE_SQE,
    KernelFn.IO_READ,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO
  };

  /** A worker's issue that failed again: the bio ends with -EAGAIN, then cond_resched. */
  static final KernelFn[] WORKER_RETRY_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC, KernelFn.BIO_RELEASE_PAGES, KernelFn.COND_RESCHED
  };

  /** A hard interrupt's entry and exit, and the hrtimer interrupt handler, per interrupt. */
  static final KernelFn[] IRQ_ENTRY_PATH = {KernelFn.IRQ_ENTRY, KernelFn.HRTIMER_INTERRUPT};

  /** The scheduler tick's own work, in a timer interrupt already entered. */
  static final KernelFn[] TICK_PATH = {KernelFn.TICK_SCHED_TIMER};

  /** SCHED_SOFTIRQ at the tick's irq_exit: the periodic load balance. */
  static final KernelFn[] LOAD_BALANCE_PATH = {KernelFn.RUN_REBALANCE_DOMAINS};

  /** The vmstat kworker, woken by its timer in the tick, preempting the thread at irq_exit. */
  static final KernelFn[] VMSTAT_PATH = {KernelFn.VMSTAT_UPDATE};

  /**
   * The raiser's part of a BLOCK_SOFTIRQ run, once per ksoftirqd wake: the first request on the
   * empty list raised the softirq from task context, which woke ksoftirqd.
   */
  static final KernelFn[] WAKE_KSOFTIRQD_PATH = {KernelFn.RAISE_SOFTIRQ, KernelFn.TRY_TO_WAKE_UP};

  /** ksoftirqd's pass over the pending softirqs, and BLOCK_SOFTIRQ's taking of the CPU's list. */
  static final KernelFn[] BLOCK_SOFTIRQ_PATH = {KernelFn.RUN_KSOFTIRQD, KernelFn.BLK_DONE_SOFTIRQ};
}

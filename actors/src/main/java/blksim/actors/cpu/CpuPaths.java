package blksim.actors.cpu;

import blksim.queues.cost.KernelFn;

/** The kernel functions a CPU's own stretches of the path run, in order, each a table. */
final class CpuPaths {
  private CpuPaths() {}

  /** io_uring_enter itself, per call: the syscall, the ring fd, io_uring's own work. */
  static final KernelFn[] ENTER_PATH = {
    KernelFn.SYSCALL, KernelFn.FDGET_FDPUT, KernelFn.IO_URING_ENTER
  };

  /**
   * io_submit_sqes to the bio allocation, per SQE, with the RCU section of the rsrc node's
   * reference that a request with a registered file or buffer takes up to 5.15.
   */
  static final KernelFn[] SUBMIT_PATH = {
    KernelFn.IO_SUBMIT_SQES,
    KernelFn.RCU_READ_LOCK_RSRC,
    KernelFn.RCU_READ_UNLOCK_RSRC,
    KernelFn.FGET,
    KernelFn.IO_PREP_RW,
    KernelFn.IO_ISSUE_SQE,
    KernelFn.IO_READ,
    KernelFn.IO_IMPORT_IOVEC,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO
  };

  /**
   * An IORING_OP_NOP ({@code -N1}), per SQE: io_submit_sqes, its issue, and the flush that posts
   * its CQE at the end of the submission.
   */
  static final KernelFn[] NOP_PATH = {
    KernelFn.IO_SUBMIT_SQES, KernelFn.IO_NOP, KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS
  };

  /** io_submit ({@code -a1}), per call. */
  static final KernelFn[] IO_SUBMIT_PATH = aioSyscall(KernelFn.IO_SUBMIT);

  /**
   * io_submit_one down to the bio's allocation, per iocb, with the RCU section of its {@code
   * ctx->reqs} get; fget, no registered file.
   */
  static final KernelFn[] IO_SUBMIT_ONE_PATH = {
    KernelFn.IO_SUBMIT_ONE,
    KernelFn.RCU_READ_LOCK_AIO,
    KernelFn.RCU_READ_UNLOCK_AIO,
    KernelFn.FGET,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO
  };

  /**
   * An aio read's bio ended: blkdev_bio_end_io_async, its pages, aio_complete_rw with the RCU
   * section of its {@code ctx->reqs} put; per bio.
   */
  static final KernelFn[] AIO_END_IO_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC,
    KernelFn.BIO_RELEASE_PAGES,
    KernelFn.AIO_COMPLETE_RW,
    KernelFn.RCU_READ_LOCK_AIO,
    KernelFn.RCU_READ_UNLOCK_AIO,
    KernelFn.FPUT
  };

  /** io_getevents ({@code -a1}), per call. */
  static final KernelFn[] IO_GETEVENTS_PATH = aioSyscall(KernelFn.IO_GETEVENTS);

  /**
   * A libaio syscall: the syscall, {@code fn}'s own work, and its three RCU sections:
   * lookup_ioctx's, the {@code ctx->users} tryget's inside it, and the put's.
   */
  private static KernelFn[] aioSyscall(KernelFn fn) {
    return new KernelFn[] {
      KernelFn.SYSCALL,
      fn,
      KernelFn.RCU_READ_LOCK_AIO,
      KernelFn.RCU_READ_LOCK_AIO,
      KernelFn.RCU_READ_UNLOCK_AIO,
      KernelFn.RCU_READ_UNLOCK_AIO,
      KernelFn.RCU_READ_LOCK_AIO,
      KernelFn.RCU_READ_UNLOCK_AIO
    };
  }

  /** preadv2 ({@code -S1}) down to submit_bio, per read; the bio is on the stack. */
  static final KernelFn[] PREADV2_PATH = {
    KernelFn.SYSCALL,
    KernelFn.FDGET_FDPUT,
    KernelFn.VFS_READV,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO_SIMPLE,
    KernelFn.BIO_INIT
  };

  /** A sync read's bio ended: bio_endio, and its end_io, which wakes the task if it sleeps. */
  static final KernelFn[] SYNC_END_IO_PATH = {
    KernelFn.BIO_ENDIO, KernelFn.BLKDEV_BIO_END_IO_SIMPLE
  };

  /** io_submit_sqes and io_read up to io_rw_init_file's refusal, per SQE. */
  static final KernelFn[] FAILED_SUBMIT_PATH = {
    KernelFn.IO_SUBMIT_SQES,
    KernelFn.RCU_READ_LOCK_RSRC,
    KernelFn.RCU_READ_UNLOCK_RSRC,
    KernelFn.FGET,
    KernelFn.IO_PREP_RW,
    KernelFn.IO_ISSUE_SQE,
    KernelFn.IO_READ,
    KernelFn.IO_IMPORT_IOVEC,
    KernelFn.FPUT
  };

  /** The user pages of a bio: a registered buffer's bvec, or pinned pages. */
  static final KernelFn[] PAGES_PATH = {
    KernelFn.BIO_IOV_ITER_GET_PAGES,
    KernelFn.IOV_ITER_ADVANCE,
    KernelFn.BIO_IOV_BVEC_SET,
    KernelFn.GET_USER_PAGES_FAST
  };

  /** One io_do_iopoll pass that found something, with its bdev lookup. */
  static final KernelFn[] POLL_PATH = {KernelFn.IO_DO_IOPOLL, KernelFn.BLKDEV_IOPOLL};

  /** One io_do_iopoll pass that found nothing. */
  static final KernelFn[] EMPTY_POLL_PATH = {KernelFn.IO_DO_IOPOLL_EMPTY, KernelFn.BLKDEV_IOPOLL};

  /** bio_endio to ki_complete on an IOPOLL ring, per bio. */
  static final KernelFn[] END_IO_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC, KernelFn.BIO_RELEASE_PAGES
  };

  /** bio_endio to io_complete_rw, which queues task_work, per bio. */
  static final KernelFn[] IRQ_END_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC, KernelFn.BIO_RELEASE_PAGES, KernelFn.IO_REQ_TASK_WORK_ADD
  };

  /** tctx_task_work per request: complete it, post its CQE, put its rsrc node reference. */
  static final KernelFn[] TASK_WORK_PATH = {
    KernelFn.TCTX_TASK_WORK,
    KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS,
    KernelFn.RCU_READ_LOCK_RSRC,
    KernelFn.RCU_READ_UNLOCK_RSRC,
    KernelFn.FPUT
  };

  /** An IOPOLL ring's completions, per request: post its CQE, put its rsrc node reference. */
  static final KernelFn[] IOPOLL_COMPLETE_PATH = {
    KernelFn.IO_IOPOLL_COMPLETE,
    KernelFn.RCU_READ_LOCK_RSRC,
    KernelFn.RCU_READ_UNLOCK_RSRC,
    KernelFn.FPUT
  };

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

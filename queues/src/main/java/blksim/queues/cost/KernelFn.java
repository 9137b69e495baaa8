package blksim.queues.cost;

/**
 * The functions the modelled path charges CPU time to, named as {@code perf report} would show
 * them. Each is either a step of the profile's shape ({@code steps}, scaled) or derived from the
 * CPU's facts by {@link PathCosts}.
 */
public enum KernelFn implements CostId {
  PREP_MORE_IOS_URING("prep_more_ios_uring"),
  REAP_EVENTS_URING("reap_events_uring"),
  SYSCALL("entry_SYSCALL_64"),
  IO_URING_ENTER("io_uring_enter"),
  /**
   * {@code fdget} of the ring's fd per {@code io_uring_enter} and its {@code fdput}: {@code
   * __fget_light}, which takes a reference since t/io_uring's threads share their file table.
   */
  FDGET_FDPUT("__fget_light"),
  IO_SUBMIT_SQES("io_submit_sqes"),
  /** A file's reference per request without {@code -F1}: {@code fget} ({@code __fget_files}). */
  FGET("__fget_files"),
  /** Its drop when the request is freed, after its completion. */
  FPUT("fput"),
  /** {@code io_issue_sqe}'s part of a read's issue (row 4): the opcode switch, the issue flags. */
  IO_ISSUE_SQE("io_issue_sqe"),
  /** {@code io_prep_rw}: the kiocb from the SQE (row 4). */
  IO_PREP_RW("io_prep_rw"),
  /**
   * The buffer's import into the iterator (row 4): {@code io_import_fixed} inlined in {@code
   * io_import_iovec}, {@code __io_import_iovec} from 5.16.
   */
  IO_IMPORT_IOVEC("io_import_iovec", "__io_import_iovec"),
  IO_READ("io_read"),
  /**
   * An IORING_OP_NOP's issue ({@code t/io_uring -N1}): {@code io_issue_sqe} with {@code io_nop}
   * inlined, its completion deferred to the flush at the end of {@code io_submit_sqes}.
   */
  IO_NOP("io_issue_sqe"),
  /** t/io_uring -a1's iocbs ({@code io_prep_pread}), per iocb. */
  PREP_MORE_IOS_AIO("prep_more_ios_aio"),
  /** t/io_uring -a1's walk of the events io_getevents copied out, per event. */
  REAP_EVENTS_AIO("reap_events_aio"),
  /** {@code io_submit} per call: the context's lookup and reference, the plug. */
  IO_SUBMIT("io_submit"),
  /** {@code io_submit_one} per iocb: the iocb copied in, {@code aio_get_req}, {@code aio_read}. */
  IO_SUBMIT_ONE("io_submit_one"),
  /**
   * {@code aio_complete_rw}: the event into the ring ({@code aio_complete}), {@code iocb_destroy}.
   */
  AIO_COMPLETE_RW("aio_complete_rw"),
  /** {@code io_getevents} per call: the context's lookup and reference, the ring's mutex. */
  IO_GETEVENTS("io_getevents"),
  /** {@code aio_read_events_ring}'s copy of one event to user space. */
  AIO_READ_EVENTS_RING("aio_read_events_ring"),
  /** t/io_uring -S1's loop in user space, per read ({@code submitter_sync_fn}). */
  SUBMITTER_SYNC_FN("submitter_sync_fn"),
  /**
   * {@code preadv2} to the block device's {@code read_iter}: {@code do_preadv}, {@code vfs_readv}
   * with {@code import_iovec}, {@code do_iter_read}, the sync kiocb, {@code fsnotify_access}.
   */
  VFS_READV("vfs_readv"),
  /** The sync read of one bio on the stack, its wait for the bio and its pages' release. */
  BLKDEV_DIRECT_IO_SIMPLE("__blkdev_direct_IO_simple"),
  /** The generic part of a read's completion, {@code blk_update_request} to {@code bi_end_io}. */
  BIO_ENDIO("bio_endio"),
  /** A sync read's {@code bi_end_io}: clears {@code bi_private}, wakes its task if not running. */
  BLKDEV_BIO_END_IO_SIMPLE("blkdev_bio_end_io_simple"),
  BLKDEV_READ_ITER("blkdev_read_iter"),
  BLKDEV_DIRECT_IO("__blkdev_direct_IO", "__blkdev_direct_IO_async"),
  BIO_ALLOC_KIOCB("bio_alloc_kiocb"),
  BIO_ALLOC_BIOSET("bio_alloc_bioset"),
  KMEM_CACHE_ALLOC("kmem_cache_alloc"),
  BIO_INIT("bio_init"),
  BIO_IOV_ITER_GET_PAGES("bio_iov_iter_get_pages"),
  /** The iterator advanced past what the bio took (row 7), out of line. */
  IOV_ITER_ADVANCE("iov_iter_advance"),
  /**
   * A registered buffer's bvec set on the bio without advancing the iterator (bio-iov-bvec-set).
   */
  BIO_IOV_BVEC_SET("bio_iov_bvec_set"),
  GET_USER_PAGES_FAST("get_user_pages_fast"),
  SUBMIT_BIO_NOACCT("submit_bio_noacct"),
  BIO_QUEUE_ENTER("bio_queue_enter"),
  /**
   * An RCU read-side section's entry and exit, out of line under CONFIG_PREEMPT_RCU: around the
   * queue reference's {@code percpu_ref} get ({@code blk_try_enter_queue}) and put ({@code
   * blk_queue_exit}).
   */
  RCU_READ_LOCK("__rcu_read_lock"),
  RCU_READ_UNLOCK("__rcu_read_unlock"),
  /**
   * The section {@code percpu_ref_tryget_live} opens inside {@code blk_try_enter_queue}'s own, up
   * to 5.15 (queue-enter-rcu-once).
   */
  RCU_READ_LOCK_NESTED("__rcu_read_lock"),
  RCU_READ_UNLOCK_NESTED("__rcu_read_unlock"),
  /**
   * The dispatch's section: {@code hctx_lock}/{@code hctx_unlock} of a queue without
   * BLK_MQ_F_BLOCKING, around each request's issue ({@code blk_mq_request_issue_directly}).
   */
  RCU_READ_LOCK_HCTX("__rcu_read_lock"),
  RCU_READ_UNLOCK_HCTX("__rcu_read_unlock"),
  /**
   * The section of the rsrc node's {@code percpu_ref_get} at a request's first registered file or
   * buffer, and of its {@code percpu_ref_put} at the request's free: charged at both, each time the
   * request takes the reference itself (up to 5.15; io-uring-rsrc-ref-cache caches it).
   */
  RCU_READ_LOCK_RSRC("__rcu_read_lock"),
  RCU_READ_UNLOCK_RSRC("__rcu_read_unlock"),
  /**
   * A section of libaio's ({@code -a1}): {@code lookup_ioctx}'s, and each {@code percpu_ref} get or
   * put of {@code ctx->users} (per syscall) and {@code ctx->reqs} (per iocb).
   */
  RCU_READ_LOCK_AIO("__rcu_read_lock"),
  RCU_READ_UNLOCK_AIO("__rcu_read_unlock"),
  BLK_MQ_SUBMIT_BIO("blk_mq_submit_bio"),
  BLK_MQ_ALLOC_REQUESTS("__blk_mq_alloc_requests"),
  /** A request's set-up from its tag (row 11): {@code blk_mq_rq_ctx_init}. */
  BLK_MQ_RQ_CTX_INIT("blk_mq_rq_ctx_init"),
  /** One tag from the sbitmap ({@code blk_mq_get_tag}). */
  SBITMAP_QUEUE_GET("__sbitmap_queue_get"),
  /** A plug's batch of tags from one sbitmap word ({@code blk_mq_get_tags}, 5.16). */
  SBITMAP_QUEUE_GET_BATCH("__sbitmap_queue_get_batch"),
  /** The queue reference a request holds, dropped when it is freed ({@code percpu_ref_put}). */
  BLK_QUEUE_EXIT("blk_queue_exit"),
  BLK_ACCOUNT_IO_START("blk_account_io_start"),
  /** A bio's look at the plug's last request for a back merge (unless nomerges = 2). */
  BLK_ATTEMPT_PLUG_MERGE("blk_attempt_plug_merge"),
  /** The merge itself: the bio chained behind the request, its size added. */
  BIO_ATTEMPT_BACK_MERGE("bio_attempt_back_merge"),
  /** After no plug merge: the software queue's list, empty under direct issue. */
  BLK_MQ_SCHED_BIO_MERGE("blk_mq_sched_bio_merge"),
  /** A request's ending of each bio behind its first ({@code req_bio_endio}). */
  BLK_UPDATE_REQUEST("blk_update_request"),
  /** mq-deadline's merge lookup for a bio the plug did not merge, under {@code dd->lock}. */
  DD_BIO_MERGE("dd_bio_merge"),
  /** The RQF_ELV part of {@code blk_mq_rq_ctx_init}, with mq-deadline's prepare_request. */
  DD_PREPARE_REQUEST("dd_prepare_request"),
  /**
   * A flush's list into mq-deadline ({@code blk_mq_sched_insert_requests}, {@code dd->lock}) and
   * the queue run that dispatches it ({@code blk_mq_run_hw_queue}), once per list.
   */
  DD_INSERT_REQUESTS("dd_insert_requests"),
  /** One request into the FIFO and hash, and the insert merge's miss. */
  DD_INSERT_REQUEST("dd_insert_request"),
  /** One level of the sort tree an insert walks down. */
  ELV_RB_ADD("elv_rb_add"),
  /** One request out of mq-deadline ({@code __blk_mq_do_dispatch_sched}'s turn, dd->lock). */
  DD_DISPATCH_REQUEST("dd_dispatch_request"),
  /** A driver tag at dispatch under a scheduler. */
  BLK_MQ_GET_DRIVER_TAG("blk_mq_get_driver_tag"),
  /** mq-deadline's completed count and the sched tag's return. */
  DD_FINISH_REQUEST("dd_finish_request"),
  KTIME_GET_NS("ktime_get_ns"),
  BLK_MQ_FLUSH_PLUG_LIST("blk_mq_flush_plug_list"),
  /** A request's start at its dispatch (row 12): its timeout armed, its state in flight. */
  BLK_MQ_START_REQUEST("blk_mq_start_request"),
  NULL_QUEUE_RQ("null_queue_rq"),
  IO_DO_IOPOLL("io_do_iopoll"),
  /** A pass of {@code io_do_iopoll} that found nothing. */
  IO_DO_IOPOLL_EMPTY("io_do_iopoll"),
  BLKDEV_IOPOLL("blkdev_iopoll", "iocb_bio_iopoll"),
  NULL_POLL("null_poll"),
  BLK_MQ_COMPLETE_REQUEST("blk_mq_complete_request"),
  BLK_MQ_END_REQUEST("blk_mq_end_request"),
  /** A request's tag back to the sbitmap ({@code blk_mq_put_tag}, {@code sbitmap_queue_clear}). */
  BLK_MQ_FREE_REQUEST("blk_mq_free_request"),
  /** The tag's return ({@code blk_mq_put_tag}): the bit cleared, the wait queues checked. */
  SBITMAP_QUEUE_CLEAR("sbitmap_queue_clear"),
  /** One request of a completion batch ({@code io_comp_batch}, 5.16). */
  BLK_MQ_END_REQUEST_BATCH("blk_mq_end_request_batch"),
  /** The tags of a batch that share a hardware queue, freed at once, and their queue references. */
  BLK_MQ_FLUSH_TAG_BATCH("blk_mq_flush_tag_batch"),
  /** One atomic per run of a batch's tags that share an sbitmap word. */
  SBITMAP_QUEUE_CLEAR_BATCH("sbitmap_queue_clear_batch"),
  END_REQUEST_STATS("__blk_mq_end_request"),
  BLK_ACCOUNT_IO_DONE("blk_account_io_done"),
  BLKDEV_BIO_END_IO_ASYNC("blkdev_bio_end_io_async"),
  BIO_RELEASE_PAGES("bio_release_pages"),
  BIO_PUT("bio_put"),
  /** {@code bio_put} to the IRQ-safe list of the per-CPU cache (bio-cache-irq-list). */
  BIO_PUT_IRQ_LIST("bio_put"),
  BIO_ALLOC_IRQ_CACHE_SPLICE("bio_alloc_irq_cache_splice"),
  BIO_FREE("bio_free"),
  IO_REQ_TASK_WORK_ADD("io_req_task_work_add"),
  TCTX_TASK_WORK("tctx_task_work"),
  IO_SUBMIT_FLUSH_COMPLETIONS("__io_submit_flush_completions"),
  /**
   * The same work on an IOPOLL ring, at the end of io_do_iopoll: CQEs filled and committed, the
   * requests back to the cache (5.15's io_iopoll_complete; 5.16's io_free_batch_list).
   */
  IO_IOPOLL_COMPLETE("io_iopoll_complete", "io_free_batch_list"),
  SCHEDULE("__schedule"),
  IRQ_ENTRY("asm_sysvec_apic_timer_interrupt"),
  HRTIMER_INTERRUPT("hrtimer_interrupt"),
  /** The scheduler tick's work in its timer interrupt (interference.tick). */
  TICK_SCHED_TIMER("tick_sched_timer"),
  /** SCHED_SOFTIRQ after a tick: the periodic load balance (interference.tick.load-balance). */
  RUN_REBALANCE_DOMAINS("run_rebalance_domains"),
  /**
   * The vmstat kworker's visit to a busy CPU (interference.vmstat): the switches to it and back are
   * in its price.
   */
  VMSTAT_UPDATE("vmstat_update"),
  NULL_TIMER_FN("null_cmd_timer_expired"),
  TRY_TO_WAKE_UP("try_to_wake_up"),
  /** {@code blk_mq_get_tag} that found no tag. */
  BLK_MQ_GET_TAG_FAILED("blk_mq_get_tag"),
  /**
   * A task without REQ_NOWAIT joins the tag wait queue before it sleeps (sbitmap_prepare_to_wait).
   */
  SBITMAP_PREPARE_TO_WAIT("sbitmap_prepare_to_wait"),
  BIO_WOULDBLOCK_ERROR("bio_wouldblock_error"),
  IO_SETUP_ASYNC_RW("io_setup_async_rw"),
  IO_QUEUE_ASYNC_WORK("io_queue_async_work"),
  IO_WQ_SUBMIT_WORK("io_wq_submit_work"),
  COND_RESCHED("__cond_resched"),
  /** {@code io_iopoll_req_issued} from io-wq, which takes {@code uring_lock}. */
  IO_IOPOLL_REQ_ISSUED("io_iopoll_req_issued"),
  DM_SUBMIT_BIO("dm_submit_bio"),
  DM_ALLOC_IO("alloc_io"),
  BIO_ALLOC_CLONE("bio_alloc_clone"),
  BIO_CLONE("__bio_clone"),
  BIO_ASSOCIATE_BLKG("bio_associate_blkg"),
  LINEAR_MAP("linear_map"),
  DM_START_IO_ACCT("dm_start_io_acct"),
  DM_END_IO_ACCT("dm_end_io_acct"),
  CLONE_ENDIO("clone_endio"),
  DM_IO_COMPLETE("dm_io_complete"),
  DM_POLL_BIO("dm_poll_bio"),
  BIO_POLL("bio_poll"),
  QUEUE_IO("queue_io"),
  DM_WQ_WORK("dm_wq_work"),
  FIO_USER("fio (user space)"),
  BLK_MQ_REQUEUE_REQUEST("blk_mq_requeue_request"),
  BLK_MQ_BYPASS_INSERT("blk_mq_request_bypass_insert"),
  BLK_MQ_REQUEUE_WORK("blk_mq_requeue_work"),
  BLK_MQ_RUN_WORK("blk_mq_run_work_fn"),
  NULL_TIMEOUT_RQ("null_timeout_rq"),
  /** irqmode=1 on one hardware queue: the request onto this CPU's {@code blk_cpu_done}. */
  BLK_MQ_RAISE_SOFTIRQ("blk_mq_raise_softirq"),
  /**
   * The first request on an empty {@code blk_cpu_done}: {@code raise_softirq} from task context,
   * which then wakes ksoftirqd ({@code wakeup_softirqd}, priced as {@link #TRY_TO_WAKE_UP}).
   */
  RAISE_SOFTIRQ("raise_softirq"),
  /** ksoftirqd's pass: {@code smpboot_thread_fn}, {@code run_ksoftirqd}, {@code __do_softirq}. */
  RUN_KSOFTIRQD("run_ksoftirqd"),
  /** BLOCK_SOFTIRQ's action: the CPU's list taken whole ({@code llist_del_all}). */
  BLK_DONE_SOFTIRQ("blk_done_softirq"),
  /** {@code ->complete} of one request from BLOCK_SOFTIRQ: {@code null_complete_rq}. */
  NULL_COMPLETE_RQ("null_complete_rq");

  private final String symbol;
  private final String symbol516;

  KernelFn(String symbol) {
    this(symbol, symbol);
  }

  /**
   * @param symbol516 its name from 5.16 on, where the code that does this work was renamed
   */
  KernelFn(String symbol, String symbol516) {
    this.symbol = symbol;
    this.symbol516 = symbol516;
  }

  /**
   * The name {@code perf report} shows on {@code kernel}: that of 5.16 on the presets from 5.16,
   * that of the default path (the shape's, before 5.16's changes) otherwise.
   */
  @Override
  public String symbol(blksim.config.KernelSettings kernel) {
    return kernel.names516() ? symbol516 : symbol;
  }

  /** The name in profiles and reports. */
  @Override
  public String symbol() {
    return symbol;
  }

  /** The name from 5.16 on (the same as {@link #symbol()} where it was not renamed). */
  public String symbol516() {
    return symbol516;
  }

  @Override
  public int index() {
    return ordinal();
  }
}

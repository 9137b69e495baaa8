package blksim.actors.block.blk_mq;

import blksim.queues.cost.KernelFn;

/** The kernel functions a hardware queue's stretches of the path run, in order, each a table. */
public final class HctxPaths {
  private HctxPaths() {}

  /**
   * The order a submission's paths are charged in (each function's draws of variation follow it).
   */
  static final blksim.queues.block.blk_mq.PlugAlloc.How[] CHARGE_ORDER = {
    blksim.queues.block.blk_mq.PlugAlloc.How.SINGLE,
    blksim.queues.block.blk_mq.PlugAlloc.How.CACHED,
    blksim.queues.block.blk_mq.PlugAlloc.How.BATCH,
    blksim.queues.block.blk_mq.PlugAlloc.How.BATCH_MISSED,
    blksim.queues.block.blk_mq.PlugAlloc.How.NO_TAG,
    blksim.queues.block.blk_mq.PlugAlloc.How.MERGED,
    blksim.queues.block.blk_mq.PlugAlloc.How.MERGED_CACHED
  };

  /** What a bio runs from submit_bio on, by how it got its request. */
  static KernelFn[] of(blksim.queues.block.blk_mq.PlugAlloc.How how) {
    return switch (how) {
      case MERGED_CACHED -> MERGED_CACHED_PATH;
      case MERGED -> MERGED_PATH;
      case CACHED -> CACHED_PATH;
      case BATCH -> BATCH_PATH;
      case BATCH_MISSED -> MISSED_PATH;
      case SINGLE -> SUBMIT_PATH;
      case NO_TAG -> NO_TAG_PATH;
    };
  }

  /** From submit_bio to a request of its own in the plug, per bio. */
  static final KernelFn[] SUBMIT_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_LOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.SBITMAP_QUEUE_GET,
    KernelFn.BLK_MQ_RQ_CTX_INIT,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_START
  };

  /**
   * A bio that takes a request the plug cached (5.16): no queue enter, no {@code
   * __blk_mq_alloc_requests} and no tag ({@code blk_mq_get_request} pops it); the request's set-up
   * ({@code blk_mq_rq_ctx_init}, in the batch's loop) is charged to it.
   */
  static final KernelFn[] CACHED_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_RQ_CTX_INIT,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_START
  };

  /** The bio whose allocation got the plug's batch of tags. */
  static final KernelFn[] BATCH_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_LOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.SBITMAP_QUEUE_GET_BATCH,
    KernelFn.BLK_MQ_RQ_CTX_INIT,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_START
  };

  /** The bio whose batch did not fit a word: the attempt, then one tag. */
  static final KernelFn[] MISSED_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_LOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.SBITMAP_QUEUE_GET_BATCH,
    KernelFn.SBITMAP_QUEUE_GET,
    KernelFn.BLK_MQ_RQ_CTX_INIT,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_START
  };

  /** A bio that went behind the plug's last request, having entered the queue and left it. */
  static final KernelFn[] MERGED_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_LOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_ATTEMPT_PLUG_MERGE,
    KernelFn.BIO_ATTEMPT_BACK_MERGE,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };

  /** The same with a cached request at hand (5.16): the merge is tried before any queue enter. */
  static final KernelFn[] MERGED_CACHED_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_ATTEMPT_PLUG_MERGE,
    KernelFn.BIO_ATTEMPT_BACK_MERGE
  };

  /** A request the driver gave to blk_mq_requeue_request, and kblockd's requeue work for it. */
  static final KernelFn[] REQUEUE_PATH = {
    KernelFn.BLK_MQ_REQUEUE_REQUEST, KernelFn.BLK_MQ_REQUEUE_WORK
  };

  /**
   * kblockd, a bound workqueue of the submitting CPU, woken to dispatch what the driver turned
   * away: it preempts the submitter there and gives the CPU back.
   */
  static final KernelFn[] KBLOCKD_PATH = {
    KernelFn.TRY_TO_WAKE_UP, KernelFn.SCHEDULE, KernelFn.BLK_MQ_RUN_WORK, KernelFn.SCHEDULE
  };

  /**
   * A dispatch of the plug's requests, per request: the flush, each request's issue in its {@code
   * hctx_lock} RCU section, and its start.
   */
  static final KernelFn[] DISPATCH_PATH = {
    KernelFn.BLK_MQ_FLUSH_PLUG_LIST,
    KernelFn.RCU_READ_LOCK_HCTX,
    KernelFn.BLK_MQ_START_REQUEST,
    KernelFn.RCU_READ_UNLOCK_HCTX
  };

  /** The merge tries of a bio that does not merge, when merges are on. */
  static final KernelFn[] MERGE_MISS_PATH = {
    KernelFn.BLK_ATTEMPT_PLUG_MERGE, KernelFn.BLK_MQ_SCHED_BIO_MERGE
  };

  /** What a bio that finds no tag runs, from submit_bio to bio_wouldblock_error. */
  public static final KernelFn[] NO_TAG_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_LOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.BLK_MQ_GET_TAG_FAILED,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.BIO_WOULDBLOCK_ERROR
  };

  /**
   * A bio without REQ_NOWAIT that finds no tag: blk_mq_get_tag puts the task on the tag wait queue
   * ({@code sbitmap_prepare_to_wait}), tries once more, and sleeps ({@code io_schedule}).
   */
  static final KernelFn[] TAG_SLEEP_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_LOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_GET_TAG_FAILED,
    KernelFn.SBITMAP_PREPARE_TO_WAIT,
    KernelFn.SCHEDULE
  };

  /** Woken, it found no tag again: back on the wait queue, asleep. */
  static final KernelFn[] TAG_SLEEP_AGAIN_PATH = {
    KernelFn.SCHEDULE,
    KernelFn.BLK_MQ_GET_TAG_FAILED,
    KernelFn.SBITMAP_PREPARE_TO_WAIT,
    KernelFn.SCHEDULE
  };

  /** Woken, it got a tag: switched in, off the wait queue, the rest of the allocation. */
  static final KernelFn[] TAG_WOKEN_PATH = {
    KernelFn.SCHEDULE,
    KernelFn.SBITMAP_QUEUE_GET,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.BLK_MQ_RQ_CTX_INIT,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_START
  };

  /** A request the plug cached that no bio took, freed at blk_finish_plug. */
  static final KernelFn[] UNUSED_PATH = {
    KernelFn.BLK_MQ_FREE_REQUEST,
    KernelFn.SBITMAP_QUEUE_CLEAR,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };

  /** blk_mq_end_request of one request, its tag and queue reference freed. */
  static final KernelFn[] END_PATH = {
    KernelFn.BLK_MQ_END_REQUEST,
    KernelFn.END_REQUEST_STATS,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_DONE,
    KernelFn.BLK_MQ_FREE_REQUEST,
    KernelFn.SBITMAP_QUEUE_CLEAR,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };

  /** The accounting of a request in a batch, with iostats. */
  static final KernelFn[] ACCT_DONE_PATH = {
    KernelFn.END_REQUEST_STATS, KernelFn.BLK_ACCOUNT_IO_DONE
  };

  /** blk_mq_flush_tag_batch: the call, the wake-up check, percpu_ref_put_many. */
  static final KernelFn[] FLUSH_TAG_BATCH_PATH = {
    KernelFn.BLK_MQ_FLUSH_TAG_BATCH,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };
}

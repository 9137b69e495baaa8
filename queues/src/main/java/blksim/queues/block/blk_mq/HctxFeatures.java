package blksim.queues.block.blk_mq;

/**
 * The kernel's choices for a hardware queue.
 *
 * @param plugBatchAlloc plug-cached requests (5.16)
 * @param pollBatch polled requests end as a batch (null_blk's {@code null_poll}, 5.17)
 * @param iostats I/O accounting: a batch reads the clock once, each request accounts
 * @param nomerges the queue's nomerges: below 2 a bio tries to merge into the plug's request
 * @param endsInQueueRq whether the driver ends each request in its queue_rq (null_blk irqmode 0 or
 *     1 with no fault injected)
 */
public record HctxFeatures(
    boolean plugBatchAlloc,
    boolean pollBatch,
    boolean iostats,
    int nomerges,
    boolean endsInQueueRq) {
  /** None of 5.16's batching, no accounting, no merges. */
  public static final HctxFeatures NONE = new HctxFeatures(false, false, false, 2, false);
}

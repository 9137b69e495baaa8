package blksim.queues.block.blk_mq;

/** Models {@code enum mq_rq_state} (block/blk-mq.h). */
public enum RqState {
  /** MQ_RQ_IDLE: free, or allocated and not started. */
  IDLE,
  /** MQ_RQ_IN_FLIGHT: started by the driver. */
  IN_FLIGHT,
  /** MQ_RQ_COMPLETE: completed, not yet freed. */
  COMPLETE
}

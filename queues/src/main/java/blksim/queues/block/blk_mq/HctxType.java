package blksim.queues.block.blk_mq;

/** Models {@code enum hctx_type} (include/linux/blk-mq.h). */
public enum HctxType {
  /** HCTX_TYPE_DEFAULT: everything not otherwise mapped. */
  DEFAULT,
  /** HCTX_TYPE_READ: reads, when a driver maps them separately (null_blk does not). */
  READ,
  /** HCTX_TYPE_POLL: REQ_POLLED I/O. */
  POLL
}

package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;

/** Models {@code enum hctx_type} (include/linux/blk-mq.h). */
public enum HctxType {
  /** HCTX_TYPE_DEFAULT: everything not otherwise mapped. */
  DEFAULT,
  /** HCTX_TYPE_READ: reads, when a driver maps them separately (null_blk does not). */
  READ,
  /** HCTX_TYPE_POLL: REQ_POLLED I/O. */
  POLL;

  /**
   * {@code blk_mq_get_hctx_type} (block/blk-mq.h): {@code REQ_POLLED} I/O goes to the poll queues,
   * else a read to the read queues, else to the default ones (docs/kernel.md 5.2).
   *
   * @param polled the bio's {@code REQ_POLLED}
   * @param op its {@code REQ_OP_*} ({@link Bio#REQ_OP_READ})
   */
  public static HctxType blkMqGetHctxType(boolean polled, int op) {
    if (polled) {
      return POLL;
    }
    return op == Bio.REQ_OP_READ ? READ : DEFAULT;
  }
}

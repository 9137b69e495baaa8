package blksim.queues.cost;

/**
 * The CPU time that sharing costs, beyond the kernel functions themselves: spinning on a lock that
 * another CPU holds, and cache lines that come over from another CPU.
 */
public enum Contention implements CostId {
  /** Spinning on null_blk's {@code nq->poll_lock}. */
  LOCK_WAIT_POLL_LOCK("[lock wait] null_blk poll_lock"),
  /** {@code nq->poll_lock}'s line, last written by another CPU. */
  LINE_POLL_LOCK("[line from another CPU] null_blk poll_lock"),
  /** Spinning on SLUB's node {@code list_lock}. */
  LOCK_WAIT_SLAB_LIST_LOCK("[lock wait] slab list_lock"),
  /** The node {@code list_lock}'s line. */
  LINE_SLAB_LIST_LOCK("[line from another CPU] slab list_lock"),
  /** Spinning on mq-deadline's {@code dd->lock}. */
  LOCK_WAIT_DD_LOCK("[lock wait] mq-deadline dd->lock"),
  /** {@code dd->lock}'s line, last written by another CPU. */
  LINE_DD_LOCK("[line from another CPU] mq-deadline dd->lock"),
  /**
   * The lines of {@code struct deadline_data} that each dispatch and insert writes besides the
   * lock's own (the BE class's FIFO, next_rq and counts; batching), last written by another CPU.
   */
  LINES_DD_DATA("[lines from another CPU] mq-deadline lists, next_rq, batching"),
  /** Spinning on the ring's {@code uring_lock}. */
  LOCK_WAIT_URING_LOCK("[lock wait] uring_lock"),
  /** The mutex word and the IOPOLL list's tail, last written by the submitter's CPU. */
  LINES_URING_LOCK("[lines from another CPU] uring_lock, IOPOLL list"),
  /** An sbitmap word of the tags, last written by another CPU. */
  LINE_SBITMAP_WORD("[line from another CPU] sbitmap word"),
  /** A request last used by another CPU. */
  LINE_REQUEST("[line from another CPU] request"),
  /** Another ring's request, bio and io_kiocb, completed by this CPU's poll. */
  LINES_REMOTE_COMPLETION("[lines from another CPU] request, bio, io_kiocb"),
  /** This ring's io_kiocb, coming back after another CPU's poll completed it. */
  LINE_OWN_KIOCB("[line from another CPU] own io_kiocb, completed elsewhere");

  private final String symbol;

  Contention(String symbol) {
    this.symbol = symbol;
  }

  @Override
  public String symbol() {
    return symbol;
  }

  /** Contention ids follow the kernel functions in the ledger's arrays. */
  private static final int OFFSET = KernelFn.values().length;

  @Override
  public int index() {
    return OFFSET + ordinal();
  }
}

package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.cost.CpuTime;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code blk_mq_poll} of a hardware queue (block/blk-mq.c 5.16): {@code bio_poll} finds the queue
 * by the bio's cookie, and whichever bio named it, the queue is what the driver polls ({@code
 * null_poll}): what it finds is this queue's, whoever submitted it. What the poll found ends one by
 * one, or, from 5.17's {@code null_poll} with an {@code io_comp_batch}, as a batch: {@code
 * blk_mq_add_to_batch} refuses a request that ends with an error.
 */
public final class Poll {
  private final EndRequest ends;
  private final boolean pollBatch;

  /**
   * @param pollBatch whether the driver's poll adds what it finds to the poller's batch (5.17)
   */
  public Poll(EndRequest ends, boolean pollBatch) {
    this.ends = ends;
    this.pollBatch = pollBatch;
  }

  /**
   * {@code bio_poll}'s first test (block/blk-core.c 5.16): a bio whose cookie is BLK_QC_T_NONE
   * returns 0 at once, without polling. On blk-mq a bio that is not polled has none: its queue had
   * no QUEUE_FLAG_POLL, {@code submit_bio_noacct} cleared REQ_POLLED, and it ends by its interrupt.
   * A DM bio keeps the cookie {@code dm_queue_poll_io} gave it at its first, polled submission
   * ({@code bio_clear_polled} does not reset it), so {@code dm_poll_bio} (5.18) is reached even
   * after a requeue cleared its polling; blksim runs DM with {@code -p1} only where every read is
   * polled first (docs/limits.md).
   *
   * @return whether the poll reaches the blk-mq queue or the bio-based disk
   */
  public static boolean bioPollReaches(Bio bio, boolean bioBased) {
    return bio.polled() || bioBased;
  }

  /**
   * {@code blk_mq_poll} at {@code atPs}: the driver's poll of this queue.
   *
   * @param batch whether the poller passes an {@code io_comp_batch} (a sync read's {@code
   *     bio_poll(&bio, NULL, 0)} does not)
   */
  public Continuation.PollQueue blkMqPoll(long atPs, boolean batch) {
    return new Continuation.PollQueue(atPs, batch);
  }

  /**
   * The requests the driver's poll found at {@code atPs}, each offered to {@code
   * blk_mq_add_to_batch}: those it refuses (all of them without a batch) end by {@code
   * blk_mq_end_request}, then the rest by {@code blk_mq_end_request_batch}; each end's frees wake
   * tag sleepers. {@code bio_poll} returns with their bios.
   *
   * @param batch the poller's {@link Continuation.PollQueue#batch}
   */
  public Continuation.Polled blkMqAddToBatch(
      int cpu,
      CpuTime what,
      List<Request> rqs,
      boolean batch,
      long atPs,
      SbqWaitState.Caller<?> waits) {
    List<Request> alone = rqs;
    List<Request> batched = List.of();
    if (pollBatch && batch) {
      alone = new ArrayList<>();
      batched = new ArrayList<>();
      for (Request rq : rqs) {
        (rq.error() == 0 ? batched : alone).add(rq);
      }
    }
    EndRequest.Ended e = ends.blkMqEndRequest(cpu, what, alone, atPs);
    List<Bio> ended = e.bios();
    long t = atPs + e.ps();
    t += waits.sbitmapQueueWakeUp(alone.size(), t);
    if (!batched.isEmpty()) {
      EndRequest.Ended b = ends.blkMqEndRequestBatch(cpu, what, batched, atPs);
      ended.addAll(b.bios());
      t += b.ps();
      t += waits.sbitmapQueueWakeUp(batched.size(), t);
    }
    return new Continuation.Polled(t, ended);
  }
}

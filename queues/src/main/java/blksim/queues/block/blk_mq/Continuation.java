package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.cost.CpuTime;
import java.util.List;

/**
 * Where a hardware queue's path crosses into another component, and what comes of the answer: the
 * driver's {@code queue_rq} or {@code poll}, or the return to the submitter of its {@code
 * submit_bio}, its {@code bio_poll} or its interrupt. Each path of {@link SubmitBio}, {@link
 * FlushPlugList}, {@link Poll} and {@link EndRequest} ends in one; the hardware queue's actor turns
 * it into the message, after what the tag wait queue told tasks on the way ({@link
 * SbqWaitState.Caller#told}).
 */
public sealed interface Continuation {

  /**
   * The driver's {@code queue_rq} of {@code rqs}, started, at {@code atPs}; its answer goes to
   * {@link FlushPlugList#queueRqReturned}.
   *
   * @param what the caller's CPU time: its own, or {@link CpuTime#KWORKER} when its CPU's kblockd
   *     worker runs the queue ({@link RunWork})
   */
  record QueueRqs(long atPs, List<Request> rqs, CpuTime what) implements Continuation {}

  /**
   * The driver's {@code poll} of this queue at {@code atPs}; its answer goes to {@link
   * Poll#blkMqAddToBatch} with {@code batch}.
   *
   * @param batch whether the poller passed an {@code io_comp_batch}
   */
  record PollQueue(long atPs, boolean batch) implements Continuation {}

  /**
   * {@code submit_bio} returns: {@code count} requests queued, {@code ended} the bios that ended at
   * once, {@code wouldBlock} those that found no tag ({@code BLK_STS_AGAIN}).
   */
  record Submitted(long atPs, int count, List<Bio> ended, List<Bio> wouldBlock)
      implements Continuation {}

  /** {@code bio_poll} returns, having ended {@code ended}. */
  record Polled(long atPs, List<Bio> ended) implements Continuation {}

  /** The interrupt on the caller's CPU ended {@code ended}: they end there, whoever submitted. */
  record IrqEnded(long atPs, List<Bio> ended) implements Continuation {}

  /**
   * The task sleeps on the tag wait queue: the wait queue's {@link SbqWaitState.Slept} answers it
   * ({@link SbqWaitState.Caller#told}), nothing more to send.
   */
  record Asleep() implements Continuation {}

  /** The one {@link Asleep}. */
  Asleep ASLEEP = new Asleep();
}

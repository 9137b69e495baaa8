package blksim.queues.block.blk_mq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.KernelFn;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code blk_mq_poll} and what the driver's poll found ({@code blk_mq_add_to_batch}, block/blk-mq.c
 * and null_blk's {@code null_poll}, 5.16 and 5.17; docs/kernel.md section 5.2).
 */
class PollTest {
  /** 5.17's {@code null_poll}, which adds what it finds to the poller's batch. */
  private static final HctxFeatures POLL_BATCH = new HctxFeatures(false, true, false, 2, false);

  private static List<Request> inFlight(HwCtxModels q, int n) {
    return assertInstanceOf(Continuation.QueueRqs.class, q.submit(q.bios(n), n)).rqs();
  }

  private static Continuation.Polled found(HwCtxModels q, List<Request> rqs, boolean batch) {
    return q.poll.blkMqAddToBatch(HwCtxModels.CPU, HwCtxModels.SUBMIT, rqs, batch, 0, q.waits);
  }

  @Test
  void blkMqPollShouldPollThisQueueWithThePollersBatch() {
    HwCtxModels q = HwCtxModels.pollQueue(64, POLL_BATCH);
    assertEquals(new Continuation.PollQueue(7, false), q.poll.blkMqPoll(7, false));
    assertEquals(new Continuation.PollQueue(7, true), q.poll.blkMqPoll(7, true));
  }

  @Test
  void bioPollOfABioNoLongerPolledShouldReachOnlyABioBasedDisk() {
    Bio bio = Bio.onStack(1);
    bio.setPolled();
    assertTrue(Poll.bioPollReaches(bio, false), "REQ_POLLED: its queue's blk_mq_poll");
    bio.clearPolled(); // its queue had no QUEUE_FLAG_POLL
    assertFalse(Poll.bioPollReaches(bio, false), "BLK_QC_T_NONE: bio_poll returns 0 at once");
    assertTrue(Poll.bioPollReaches(bio, true), "dm_poll_bio looks at it itself");
  }

  @Test
  void polledRequestsShouldEndOneByOneBefore517() {
    HwCtxModels q = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    Continuation.Polled p = found(q, inFlight(q, 5), true);
    assertEquals(5, p.ended().size());
    assertEquals(5, q.calls(KernelFn.BLK_MQ_END_REQUEST));
    assertEquals(0, q.calls(KernelFn.BLK_MQ_END_REQUEST_BATCH));
    assertEquals(0, q.hctx.tags().inUse());
  }

  @Test
  void from517PolledRequestsWithoutAnErrorShouldEndAsABatch() {
    HwCtxModels q = HwCtxModels.pollQueue(8, POLL_BATCH);
    List<Request> rqs = inFlight(q, 5);
    q.asleep("first");
    q.asleep("second");
    rqs.get(2).setError(-11);
    Bio refused = rqs.get(2).bio();
    Continuation.Polled p = found(q, rqs, true);
    assertEquals(1, q.calls(KernelFn.BLK_MQ_END_REQUEST), "blk_mq_add_to_batch refuses an error");
    assertEquals(4, q.calls(KernelFn.BLK_MQ_END_REQUEST_BATCH));
    assertSame(refused, p.ended().get(0), "the refused one ends first");
    assertEquals(-11, refused.status());
    assertEquals(
        List.of("first", "second"),
        q.woken(),
        "each end's frees wake sleepers: the refused one's, then the batch's (wake_batch 1)");
  }

  @Test
  void withoutAnIoCompBatchPolledRequestsShouldEndOneByOneEvenOn517() {
    HwCtxModels q = HwCtxModels.pollQueue(64, POLL_BATCH);
    found(q, inFlight(q, 5), false);
    assertEquals(5, q.calls(KernelFn.BLK_MQ_END_REQUEST), "a sync read's bio_poll(&bio, NULL, 0)");
    assertEquals(0, q.calls(KernelFn.BLK_MQ_END_REQUEST_BATCH));
  }

  @Test
  void aRequestPolledOnTheWrongHardwareQueueShouldNotEndThere() {
    HwCtxModels poll = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    HwCtxModels other = new HwCtxModels(new HwCtx(0, HctxType.DEFAULT, 64, 1), HctxFeatures.NONE);
    List<Request> theirs = inFlight(other, 1);
    assertThrows(InvariantBroken.class, () -> found(poll, theirs, true));
    assertTrue(theirs.get(0).allocated(), "it stays its own queue's");
  }
}

package blksim.queues.block.blk_mq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import blksim.config.BooksSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.KernelFn;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code blk_mq_end_request}, {@code blk_mq_end_request_batch} and {@code __blk_mq_free_request}
 * (block/blk-mq.c 5.16, 5.17; docs/kernel.md section 5.2).
 */
class EndRequestTest {
  /** 5.17's batched polls with iostats on. */
  private static final HctxFeatures BATCH_IOSTATS = new HctxFeatures(false, true, true, 2, false);

  /** {@code n} requests submitted and queued on {@code q}. */
  private static List<Request> inFlight(HwCtxModels q, int n) {
    return assertInstanceOf(Continuation.QueueRqs.class, q.submit(q.bios(n), n)).rqs();
  }

  @Test
  void endingARequestShouldCompleteItsBioAndFreeItsTag() {
    HwCtxModels q = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    List<Request> rqs = inFlight(q, 3);
    rqs.get(1).setError(-5);
    EndRequest.Ended e = q.ends.blkMqEndRequest(HwCtxModels.CPU, HwCtxModels.SUBMIT, rqs, 0);
    assertEquals(3, e.bios().size());
    assertEquals(List.of(0, -5, 0), e.bios().stream().map(Bio::status).toList());
    assertEquals(0, q.hctx.tags().inUse(), "each tag back");
    for (Request rq : rqs) {
      assertFalse(rq.allocated());
    }
    assertEquals(3, q.calls(KernelFn.BLK_MQ_END_REQUEST));
    assertEquals(3, q.calls(KernelFn.BLK_MQ_FREE_REQUEST));
  }

  @Test
  void endRequestBatchShouldChargeTheClockOnceAndOneTagFlushPerTagCompBatch() {
    HwCtxModels q = HwCtxModels.pollQueue(128, BATCH_IOSTATS);
    List<Request> rqs = inFlight(q, 40);
    long clockBefore = q.calls(KernelFn.KTIME_GET_NS);
    q.ends.blkMqEndRequestBatch(HwCtxModels.CPU, HwCtxModels.SUBMIT, rqs, 0);
    assertEquals(40, q.calls(KernelFn.BLK_MQ_END_REQUEST_BATCH), "each request's part");
    assertEquals(0, q.calls(KernelFn.BLK_MQ_END_REQUEST), "none ends by itself");
    assertEquals(1, q.calls(KernelFn.KTIME_GET_NS) - clockBefore, "one clock read a batch");
    assertEquals(
        (40 + EndRequest.TAG_COMP_BATCH - 1) / EndRequest.TAG_COMP_BATCH,
        q.calls(KernelFn.BLK_MQ_FLUSH_TAG_BATCH),
        "blk_mq_flush_tag_batch every TAG_COMP_BATCH tags");
    assertEquals(40, q.calls(KernelFn.BLK_ACCOUNT_IO_DONE), "with iostats each one accounts");
    assertEquals(0, q.hctx.tags().inUse());
  }

  @Test
  void aMergedRequestShouldEndEachOfItsBiosAndFreeOneTag() {
    HwCtxModels q = HwCtxModels.pollQueue(64, new HctxFeatures(false, false, false, 0, false));
    List<Bio> bios = q.sequentialBios(3);
    List<Request> rqs = assertInstanceOf(Continuation.QueueRqs.class, q.submit(bios, 3)).rqs();
    EndRequest.Ended e = q.ends.blkMqEndRequest(HwCtxModels.CPU, HwCtxModels.SUBMIT, rqs, 0);
    assertEquals(bios, e.bios());
    assertEquals(1, q.calls(KernelFn.BLK_MQ_FREE_REQUEST));
    assertEquals(2, q.calls(KernelFn.BLK_UPDATE_REQUEST), "the bios behind the first");
  }

  @Test
  void aRequestOfAnotherHardwareQueueShouldNotEndHere() {
    HwCtxModels here = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    HwCtxModels other = new HwCtxModels(new HwCtx(0, HctxType.DEFAULT, 64, 1), HctxFeatures.NONE);
    List<Request> theirs = inFlight(other, 1);
    assertThrows(
        InvariantBroken.class,
        () -> here.ends.blkMqEndRequest(HwCtxModels.CPU, HwCtxModels.SUBMIT, theirs, 0));
  }

  @Test
  void aTagLeakedOnPurposeShouldStayAllocated() {
    HwCtxModels q =
        new HwCtxModels(
            new HwCtx(1, HctxType.POLL, 64, 1),
            HctxFeatures.NONE,
            new BooksSettings(BooksSettings.Break.LEAK_TAG, 0));
    List<Request> rqs = inFlight(q, 2);
    EndRequest.Ended e = q.ends.blkMqEndRequest(HwCtxModels.CPU, HwCtxModels.SUBMIT, rqs, 0);
    assertEquals(2, e.bios().size(), "its bio still ends");
    assertEquals(1, q.hctx.tags().inUse(), "books.break = leak-tag: the first tag never goes back");
  }

  @Test
  void anInterruptsEndsShouldWakeSleepersAndEndOnItsCpu() {
    HwCtxModels q = HwCtxModels.pollQueue(8, HctxFeatures.NONE);
    List<Request> rqs = inFlight(q, 4);
    q.asleep("sleeper");
    Continuation.IrqEnded e =
        assertInstanceOf(
            Continuation.IrqEnded.class,
            q.ends.blkMqEndRequestInIrq(HwCtxModels.TASK, HwCtxModels.SUBMIT, rqs, 0, q.waits));
    assertEquals(4, e.ended().size());
    assertEquals(List.of("sleeper"), q.woken(), "sbitmap_queue_wake_up of the four tags");
  }
}

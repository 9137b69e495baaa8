package blksim.queues.block.blk_mq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.KernelFn;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code blk_mq_flush_plug_list} into the driver's {@code queue_rq}, and its return (block/blk-mq.c
 * 5.16; docs/kernel.md section 5.2).
 */
class FlushPlugListTest {

  @Test
  void requestsEndedInQueueRqShouldEndOnTheSubmittingCpuAndTheSubmissionReturn() {
    HwCtxModels q = HwCtxModels.pollQueue(8, HctxFeatures.NONE);
    List<Bio> bios = q.bios(4);
    Continuation.QueueRqs rqs = assertInstanceOf(Continuation.QueueRqs.class, q.submit(bios, 4));
    q.asleep("sleeper");
    Continuation.Submitted s =
        assertInstanceOf(Continuation.Submitted.class, q.queued(rqs, rqs.rqs()));
    assertEquals(4, s.count());
    assertEquals(bios, s.ended());
    assertEquals(0, q.hctx.tags().inUse(), "their tags back before submit_bio returns");
    assertEquals(List.of("sleeper"), q.woken(), "their frees wake a tag sleeper (wake_batch 1)");
  }

  @Test
  void requestsQueueRqLeftOnThePollListShouldNotEndWhenItReturns() {
    HwCtxModels q = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    Continuation.QueueRqs rqs =
        assertInstanceOf(Continuation.QueueRqs.class, q.submit(q.bios(4), 4));
    Continuation.Submitted s =
        assertInstanceOf(Continuation.Submitted.class, q.queued(rqs, List.of()));
    assertEquals(4, s.count());
    assertEquals(List.of(), s.ended());
    assertEquals(4, q.hctx.tags().inUse(), "they wait for the poll");
    assertEquals(0, q.calls(KernelFn.BLK_MQ_END_REQUEST));
  }

  @Test
  void endsThroughBlkMqCompleteRequestShouldChargeItPerRequest() {
    HwCtxModels q = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    Continuation.QueueRqs rqs =
        assertInstanceOf(Continuation.QueueRqs.class, q.submit(q.bios(3), 3));
    q.flush.queueRqReturned(
        HwCtxModels.TASK, rqs.what(), 0, 3, rqs.rqs(), true, List.of(), List.of(), q.waits);
    assertEquals(3, q.calls(KernelFn.BLK_MQ_COMPLETE_REQUEST));
    assertEquals(3, q.calls(KernelFn.BLK_MQ_END_REQUEST));
  }

  @Test
  void underMqDeadlineQueueRqShouldGetTheRequestsInItsOrderEachStarted() {
    HwCtxModels q = HwCtxModels.underMqDeadline(64, 64, HctxFeatures.NONE);
    List<Bio> bios = q.biosAt(50, 10, 30, 20, 40);
    Continuation.QueueRqs rqs = assertInstanceOf(Continuation.QueueRqs.class, q.submit(bios, 5));
    assertEquals(
        List.of(bios.get(0), bios.get(1), bios.get(3), bios.get(2), bios.get(4)),
        rqs.rqs().stream().map(Request::bio).toList(),
        "mq-deadline's: the FIFO's head, then the oldest left upwards in sector order");
    for (Request rq : rqs.rqs()) {
      assertEquals(RqState.IN_FLIGHT, rq.state(), "each started as it goes to the driver");
    }
    assertEquals(5, q.hctx.driverTags().inUse(), "each with its driver tag");
  }
}

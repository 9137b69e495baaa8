package blksim.queues.block.blk_mq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code blk_mq_submit_bio} under a plug and {@code blk_finish_plug} (block/blk-mq.c 5.16;
 * docs/kernel.md section 5.2).
 */
class SubmitBioTest {
  /** 5.16's plug-cached requests, merges off. */
  private static final HctxFeatures PLUG_BATCH = new HctxFeatures(true, false, false, 2, false);

  /** Merges on ({@code nomerges = 0}), no batching. */
  private static final HctxFeatures MERGES = new HctxFeatures(false, false, false, 0, false);

  @Test
  void aPlugShouldGatherTheSubmissionsRequestsAndFlushThemToQueueRqAtItsEnd() {
    HwCtxModels q = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    List<Bio> bios = q.bios(8);
    Continuation.QueueRqs rqs = assertInstanceOf(Continuation.QueueRqs.class, q.submit(bios, 8));
    assertEquals(8, rqs.rqs().size(), "one blk_mq_flush_plug_list for the whole submission");
    assertEquals(CpuTime.SUBMIT, rqs.what(), "the submitter's own execution");
    for (int i = 0; i < bios.size(); i++) {
      Request rq = rqs.rqs().get(i);
      assertSame(bios.get(i), rq.bio(), "in the order the bios came");
      assertEquals(RqState.IN_FLIGHT, rq.state(), "blk_mq_start_request");
      assertEquals(1, bios.get(i).cookie(), "bi_cookie names the hardware queue");
    }
    assertEquals(8, q.calls(KernelFn.BLK_MQ_START_REQUEST));
    assertEquals(8, q.hctx.dispatchedCount());
  }

  @Test
  void aPlugShouldFlushItsListEveryBlkMaxRequestCountRequests() {
    HwCtxModels q = HwCtxModels.underMqDeadline(128, 128, HctxFeatures.NONE);
    int n = Plug.BLK_MAX_REQUEST_COUNT + 8;
    Continuation.QueueRqs rqs =
        assertInstanceOf(Continuation.QueueRqs.class, q.submit(q.bios(n), 32));
    assertEquals(
        2,
        q.calls(KernelFn.DD_INSERT_REQUESTS),
        "blk_add_rq_to_plug flushes the 32 it holds before the 33rd, blk_finish_plug the rest:"
            + " two lists for blk_mq_sched_insert_requests");
    assertEquals(n, q.calls(KernelFn.DD_INSERT_REQUEST));
    assertEquals(n, rqs.rqs().size());
  }

  @Test
  void withoutPlugCachedRequestsEachBioShouldAllocateItsOwnTag() {
    HwCtxModels q = HwCtxModels.pollQueue(128, HctxFeatures.NONE);
    q.submit(q.bios(8), 8);
    assertEquals(8, q.calls(KernelFn.SBITMAP_QUEUE_GET));
    assertEquals(8, q.calls(KernelFn.BIO_QUEUE_ENTER));
    assertEquals(8, q.calls(KernelFn.BLK_MQ_ALLOC_REQUESTS));
    assertEquals(0, q.calls(KernelFn.SBITMAP_QUEUE_GET_BATCH));
  }

  @Test
  void plugCachedRequestsShouldSkipTheQueueEnterAndTheTagAllocation() {
    HwCtxModels q = HwCtxModels.pollQueue(128, PLUG_BATCH);
    q.submit(q.bios(8), 8);
    assertEquals(8, q.calls(KernelFn.BLK_MQ_SUBMIT_BIO));
    assertEquals(1, q.calls(KernelFn.SBITMAP_QUEUE_GET_BATCH), "the first bio's batch");
    assertEquals(0, q.calls(KernelFn.SBITMAP_QUEUE_GET), "no bio takes a tag of its own");
    assertEquals(1, q.calls(KernelFn.BIO_QUEUE_ENTER), "the seven after it take cached ones");
    assertEquals(1, q.calls(KernelFn.BLK_MQ_ALLOC_REQUESTS));
    assertEquals(8, q.calls(KernelFn.BLK_MQ_RQ_CTX_INIT), "each cached request was set up");
  }

  @Test
  void aBatchOfTagsShouldFillThePlugsCacheAndWhatNoBioTookShouldGoBackAtBlkFinishPlug() {
    HwCtxModels q = HwCtxModels.pollQueue(128, PLUG_BATCH);
    Continuation.QueueRqs rqs =
        assertInstanceOf(Continuation.QueueRqs.class, q.submit(q.bios(4), 32));
    assertEquals(4, rqs.rqs().size());
    assertEquals(4, q.hctx.tags().inUse(), "the plug's nr_ios tags, less the 28 unused");
    assertEquals(28, q.calls(KernelFn.BLK_MQ_FREE_REQUEST), "blk_mq_free_plug_rqs");
  }

  @Test
  void theFreesOfTheRequestsNoBioTookShouldWakeTagSleepers() {
    HwCtxModels q = HwCtxModels.pollQueue(128, PLUG_BATCH);
    q.asleep("sleeper");
    q.submit(q.bios(4), 32);
    assertEquals(
        List.of("sleeper"),
        q.woken(),
        "blk_mq_free_plug_rqs: 28 tags back, wake_batch 8, sbitmap_queue_wake_up");
  }

  @Test
  void aBatchThatDoesNotFitAWordShouldFallBackToOneTag() {
    HwCtxModels q = HwCtxModels.pollQueue(64, PLUG_BATCH);
    q.submit(q.bios(2), 32);
    assertEquals(1, q.calls(KernelFn.SBITMAP_QUEUE_GET_BATCH), "the attempt");
    assertEquals(2, q.calls(KernelFn.SBITMAP_QUEUE_GET), "then one tag each: nr_ios is 1 now");
  }

  @Test
  void aNowaitBioThatFindsNoTagShouldEndWithEagainWhenTheFlushReturns() {
    HwCtxModels q = HwCtxModels.pollQueue(4, HctxFeatures.NONE);
    List<Bio> bios = q.nowaitBios(6);
    Continuation.QueueRqs rqs = assertInstanceOf(Continuation.QueueRqs.class, q.submit(bios, 6));
    assertEquals(4, rqs.rqs().size());
    assertEquals(2, q.calls(KernelFn.BIO_WOULDBLOCK_ERROR));
    Continuation.Submitted s =
        assertInstanceOf(Continuation.Submitted.class, q.queued(rqs, List.of()));
    assertEquals(4, s.count());
    assertEquals(bios.subList(4, 6), s.wouldBlock(), "they wait for the submission's return");
    for (Bio bio : s.wouldBlock()) {
      assertEquals(-SubmitBio.BLK_STS_AGAIN_ERRNO, bio.status(), "BLK_STS_AGAIN");
    }
    assertTrue(q.flush.idle());
  }

  @Test
  void aSubmissionThatGotNoTagAtAllShouldReturnAtOnce() {
    HwCtxModels q = HwCtxModels.pollQueue(2, HctxFeatures.NONE);
    q.submit(q.nowaitBios(2), 2);
    List<Bio> late = q.nowaitBios(3);
    Continuation.Submitted s = assertInstanceOf(Continuation.Submitted.class, q.submit(late, 3));
    assertEquals(0, s.count(), "nothing plugged, nothing flushed");
    assertEquals(late, s.wouldBlock());
  }

  @Test
  void aBioWithoutNowaitThatFindsNoTagShouldSleepWithTheBiosAfterIt() {
    HwCtxModels q = HwCtxModels.pollQueue(2, HctxFeatures.NONE);
    q.submit(q.bios(2), 2);
    long entered = q.calls(KernelFn.BIO_QUEUE_ENTER);
    List<Bio> bios = q.bios(3);
    assertSame(Continuation.ASLEEP, q.submit(bios, 3));
    assertEquals(1, q.slept().size(), "blk_mq_get_tag's io_schedule");
    assertEquals(bios, q.slept().get(0).bios());
    assertEquals(1, q.sbq.asleep());
    assertEquals(1, q.calls(KernelFn.SBITMAP_PREPARE_TO_WAIT));
    assertEquals(entered + 1, q.calls(KernelFn.BIO_QUEUE_ENTER), "from submit_bio: TAG_SLEEP_PATH");
  }

  @Test
  void aBioThatSleepsForATagShouldFlushThePlugFirst() {
    HwCtxModels q = HwCtxModels.pollQueue(2, HctxFeatures.NONE);
    List<Bio> bios = q.bios(5);
    Continuation.QueueRqs rqs = assertInstanceOf(Continuation.QueueRqs.class, q.submit(bios, 5));
    assertEquals(2, rqs.rqs().size(), "schedule()'s blk_flush_plug");
    assertEquals(1, q.sbq.flushing(), "on the wait queue, not asleep yet");
    assertEquals(List.of(), q.slept());
    assertSame(Continuation.ASLEEP, q.queued(rqs, List.of()), "then it sleeps");
    assertEquals(1, q.slept().size());
    assertEquals(bios.subList(2, 5), q.slept().get(0).bios(), "with the bios it did not submit");
  }

  @Test
  void aWokenTaskThatGetsATagShouldSubmitTheRestUnderAPlugOfItsOwn() {
    HwCtxModels q = HwCtxModels.pollQueue(4, HctxFeatures.NONE);
    List<Bio> bios = q.bios(3);
    Continuation.QueueRqs rqs =
        assertInstanceOf(
            Continuation.QueueRqs.class,
            q.submit.blkMqGetTag(HwCtxModels.TASK, HwCtxModels.SUBMIT, 0, bios, q.waits));
    assertEquals(3, rqs.rqs().size());
    assertSame(bios.get(0), rqs.rqs().get(0).bio(), "the bio that slept goes first");
    assertEquals(List.of(), q.slept(), "it does not sleep again");
    assertEquals(
        1, q.calls(KernelFn.SCHEDULE), "switched in: blk_mq_get_tag's io_schedule returns");
  }

  @Test
  void aWokenTaskThatFindsNoTagShouldSleepAgain() {
    HwCtxModels q = HwCtxModels.pollQueue(1, HctxFeatures.NONE);
    q.submit(q.bios(1), 1);
    long entered = q.calls(KernelFn.BIO_QUEUE_ENTER);
    List<Bio> bios = q.bios(2);
    assertSame(
        Continuation.ASLEEP,
        q.submit.blkMqGetTag(HwCtxModels.TASK, HwCtxModels.SUBMIT, 0, bios, q.waits));
    assertEquals(1, q.slept().size());
    assertEquals(bios, q.slept().get(0).bios());
    assertEquals(2, q.calls(KernelFn.SCHEDULE), "switched in, then out: TAG_SLEEP_AGAIN_PATH");
    assertEquals(entered, q.calls(KernelFn.BIO_QUEUE_ENTER), "not from submit_bio again");
  }

  @Test
  void aBioShouldMergeBehindThePlugsLastRequestUnlessNomergesIs2() {
    HwCtxModels merging = HwCtxModels.pollQueue(64, MERGES);
    Continuation.QueueRqs one =
        assertInstanceOf(Continuation.QueueRqs.class, merging.submit(merging.sequentialBios(4), 4));
    assertEquals(1, one.rqs().size(), "bio_attempt_back_merge");
    assertEquals(4, one.rqs().get(0).bios().size());
    assertEquals(3, merging.hctx.mergedCount());
    HwCtxModels not = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    Continuation.QueueRqs four =
        assertInstanceOf(Continuation.QueueRqs.class, not.submit(not.sequentialBios(4), 4));
    assertEquals(4, four.rqs().size());
    assertEquals(0, not.calls(KernelFn.BLK_ATTEMPT_PLUG_MERGE), "nomerges = 2 tries none");
  }

  @Test
  void aBioThatDoesNotMergeShouldStillPayTheTries() {
    HwCtxModels q = HwCtxModels.pollQueue(64, MERGES);
    q.submit(q.bios(4), 4);
    assertEquals(4, q.calls(KernelFn.BLK_ATTEMPT_PLUG_MERGE));
    assertEquals(4, q.calls(KernelFn.BLK_MQ_SCHED_BIO_MERGE));
  }

  /**
   * Two tasks of CPU 0 sleep in {@code blk_mq_get_tag}, each on a wait entry of its own: the first
   * woken gets a tag, plugs it and finds none for its next bio, so it is back on the wait queue
   * behind the other while its plug is flushed. A tag freed then (a timer's interrupt) wakes the
   * other, whose entry is first; the flushing task sleeps after its flush. Each is told for itself.
   */
  @Test
  void aTagFreedWhileATaskFlushesItsPlugShouldWakeTheOtherSleeperOfItsCpu() {
    HwCtxModels q = HwCtxModels.pollQueue(2, HctxFeatures.NONE);
    Continuation.QueueRqs queued =
        assertInstanceOf(Continuation.QueueRqs.class, q.submit(q.bios(2), 2));
    assertInstanceOf(Continuation.Submitted.class, q.queued(queued, List.of()));
    List<Request> held = queued.rqs(); // in flight: no tag is free
    List<Bio> mine = q.bios(2);
    assertSame(Continuation.ASLEEP, q.submit(mine, 2));
    TaskOnCpu sibling = new TaskOnCpu(HwCtxModels.CPU, 1);
    SbqWaitState.Caller<String> other = q.sbq.caller("sibling", sibling, HwCtxModels.SUBMIT);
    assertSame(
        Continuation.ASLEEP,
        q.submit.blkMqSubmitBio(sibling, HwCtxModels.SUBMIT, 0, q.bios(1), 1, other));
    assertEquals(2, q.sbq.asleep(), "both tasks of CPU 0 asleep");

    TaskOnCpu irq = new TaskOnCpu(HwCtxModels.CPU, -2); // the CPU's interrupt path
    SbqWaitState.Caller<String> first = q.sbq.caller("irq", irq, CpuTime.IRQ);
    q.ends.blkMqEndRequestInIrq(irq, CpuTime.IRQ, held.subList(0, 1), 1_000, first);
    assertEquals(List.of("submitter"), waiters(first), "the first entry's task");
    Continuation.QueueRqs flush =
        assertInstanceOf(
            Continuation.QueueRqs.class,
            q.submit.blkMqGetTag(HwCtxModels.TASK, HwCtxModels.SUBMIT, 2_000, mine, q.waits));
    assertEquals(1, flush.rqs().size(), "its tag, plugged; no tag for the second bio");
    assertEquals(1, q.sbq.flushing());

    SbqWaitState.Caller<String> second = q.sbq.caller("irq", irq, CpuTime.IRQ);
    q.ends.blkMqEndRequestInIrq(irq, CpuTime.IRQ, held.subList(1, 2), 3_000, second);
    assertEquals(List.of("sibling"), waiters(second), "the sibling's entry is first now");
    assertSame(Continuation.ASLEEP, q.queued(flush, List.of()), "the flusher sleeps after it");
    assertEquals(2, q.slept().size(), "the submitter slept twice");
    assertEquals(List.of(mine.get(1)), q.slept().get(1).bios());
    assertEquals(
        List.of(), q.woken(), "no wake came to its flush: the sibling's was the sibling's");
    assertEquals(1, q.sbq.asleep());
  }

  private static List<String> waiters(SbqWaitState.Caller<String> c) {
    return c.told().stream().map(SbqWaitState.Answer::waiter).toList();
  }
}

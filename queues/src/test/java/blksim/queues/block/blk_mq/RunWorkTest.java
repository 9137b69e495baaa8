package blksim.queues.block.blk_mq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * kblockd's runs of a hardware queue ({@code hctx->run_work}, {@code q->requeue_work} and {@code
 * blk_mq_sched_restart}, block/blk-mq.c and blk-mq-sched.c 5.16), and {@code queue_rq}'s return.
 */
class RunWorkTest {

  private static Continuation.QueueRqs flushed(HwCtxModels q, List<Bio> bios) {
    return assertInstanceOf(Continuation.QueueRqs.class, q.submit(bios, bios.size()));
  }

  /** The driver took {@code q}'s requests and turned {@code busy} and {@code requeued} away. */
  private static Continuation turnedAway(
      HwCtxModels q,
      Continuation.QueueRqs rqs,
      List<Request> completed,
      List<Request> busy,
      List<Request> requeued) {
    return q.flush.queueRqReturned(
        HwCtxModels.TASK,
        rqs.what(),
        rqs.atPs(),
        rqs.rqs().size(),
        completed,
        false,
        busy,
        requeued,
        q.waits);
  }

  @Test
  void kblockdShouldDispatchWhatTheDriverTurnedAwayInOneRunPerRound() {
    HwCtxModels q = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    List<Bio> bios = q.bios(6);
    Continuation.QueueRqs first = flushed(q, bios);
    List<Request> rqs = first.rqs();
    Continuation.QueueRqs again =
        assertInstanceOf(
            Continuation.QueueRqs.class,
            turnedAway(q, first, rqs.subList(0, 2), rqs.subList(2, 4), rqs.subList(4, 6)));
    assertEquals(rqs.subList(2, 6), again.rqs(), "BLK_STS_RESOURCE first, then the requeued");
    assertEquals(CpuTime.SUBMIT, again.what(), "charged to the call kblockd preempted");
    assertEquals(1, q.calls(KernelFn.BLK_MQ_RUN_WORK), "one run of the queue for the round");
    assertEquals(2, q.calls(KernelFn.BLK_MQ_BYPASS_INSERT));
    assertEquals(2, q.calls(KernelFn.BLK_MQ_REQUEUE_REQUEST));
    assertEquals(4, q.hctx.busyCount() + q.hctx.requeueCount());
    Continuation.QueueRqs third =
        assertInstanceOf(
            Continuation.QueueRqs.class,
            turnedAway(q, again, again.rqs().subList(0, 3), again.rqs().subList(3, 4), List.of()));
    assertEquals(2, q.calls(KernelFn.BLK_MQ_RUN_WORK), "a second round, a second run");
    Continuation.Submitted s =
        assertInstanceOf(Continuation.Submitted.class, q.queued(third, third.rqs()));
    assertEquals(6, s.count(), "what each round took, counted once");
    assertEquals(bios, s.ended(), "what the earlier rounds ended waited for the call");
    assertTrue(q.runWork.idle());
  }

  @Test
  void aRestartAfterAnInterruptsFreesShouldRunOnKblockdBeforeTheInterruptsBiosEnd() {
    HwCtxModels q = HwCtxModels.underMqDeadline(64, 2, HctxFeatures.NONE);
    List<Bio> bios = q.bios(3);
    Continuation.QueueRqs first = flushed(q, bios);
    assertEquals(2, first.rqs().size(), "the third found no driver tag: on hctx->dispatch");
    // the driver keeps them for its timers: nothing ends in queue_rq, the driver tags stay held
    Continuation.Submitted s =
        assertInstanceOf(Continuation.Submitted.class, q.queued(first, List.of()));
    assertEquals(2, s.count());
    assertEquals(0, q.calls(KernelFn.BLK_MQ_RUN_WORK), "no driver tag free: no restart yet");
    Continuation.QueueRqs restart =
        assertInstanceOf(
            Continuation.QueueRqs.class,
            q.ends.blkMqEndRequestInIrq(HwCtxModels.TASK, CpuTime.IRQ, first.rqs(), 0, q.waits));
    assertEquals(CpuTime.KWORKER, restart.what(), "the CPU's kblockd worker");
    assertEquals(List.of(bios.get(2)), restart.rqs().stream().map(Request::bio).toList());
    assertEquals(1, q.sched.stats().restarts(), "blk_mq_sched_restart");
    assertFalse(q.runWork.idle(), "the interrupt's bios wait");
    Continuation.IrqEnded e =
        assertInstanceOf(Continuation.IrqEnded.class, q.queued(restart, List.of()));
    assertEquals(bios.subList(0, 2), e.ended(), "they end once the restart's round is queued");
    assertTrue(q.runWork.idle());
  }

  @Test
  void aQueueRunThatPausedForQueueRqsEndsShouldGoOnInTheCallersContext() {
    HwCtxModels q =
        HwCtxModels.underMqDeadline(64, 1, new HctxFeatures(false, false, false, 2, true));
    List<Bio> bios = q.bios(2);
    Continuation.QueueRqs first = flushed(q, bios);
    assertEquals(1, first.rqs().size(), "one driver tag: the second request waits for its end");
    assertTrue(q.sched.paused(HwCtxModels.TASK), "paused, not on hctx->dispatch");
    Continuation.QueueRqs next =
        assertInstanceOf(Continuation.QueueRqs.class, q.queued(first, first.rqs()));
    assertEquals(
        List.of(bios.get(1)),
        next.rqs().stream().map(Request::bio).toList(),
        "blk_mq_dispatch_rq_list's next request, with the driver tag the end freed");
    assertEquals(CpuTime.SUBMIT, next.what(), "the same context, not kblockd");
    assertEquals(0, q.calls(KernelFn.BLK_MQ_RUN_WORK));
    Continuation.Submitted s =
        assertInstanceOf(Continuation.Submitted.class, q.queued(next, next.rqs()));
    assertEquals(2, s.count());
    assertEquals(bios, s.ended());
    assertTrue(q.runWork.idle());
  }

  @Test
  void withoutASchedulerNoRestartShouldRun() {
    HwCtxModels q = HwCtxModels.pollQueue(64, HctxFeatures.NONE);
    Continuation.QueueRqs rqs = flushed(q, q.bios(2));
    assertInstanceOf(
        Continuation.IrqEnded.class,
        q.ends.blkMqEndRequestInIrq(HwCtxModels.TASK, CpuTime.IRQ, rqs.rqs(), 0, q.waits));
    assertEquals(0, q.calls(KernelFn.BLK_MQ_RUN_WORK));
  }
}

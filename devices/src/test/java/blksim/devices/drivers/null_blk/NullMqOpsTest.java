package blksim.devices.drivers.null_blk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.FaultAttr;
import blksim.config.NullBlkSettings;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.blk_mq.RqState;
import blksim.queues.books.Books;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;

/**
 * null_blk's operations over one device, charged as the CPU that calls them pays for them
 * (drivers/block/null_blk/main.c 5.16-6.6; the rules of docs/kernel.md 3.1 and 3.3), without an
 * actor: what each did with its requests, what it armed, and the time it took.
 */
class NullMqOpsTest {
  private static final BlksimSettings DEFAULTS = BlksimSettings.defaults();
  private static final PathCosts COSTS =
      PathCosts.of(DEFAULTS.profile(), DEFAULTS.kernel(), new PathCosts.Knobs(true, true, true));
  private static final String LOCK_WAIT = "[lock wait] null_blk poll_lock";
  private static final String LINE = "[line from another CPU] null_blk poll_lock";

  /** The module's parameters, in the settings' names, over the defaults. */
  private static NullBlkSettings params(String hocon) {
    return BlksimSettings.from(
            ConfigFactory.parseString("blksim { " + hocon + " }")
                .withFallback(ConfigFactory.defaultReference())
                .resolve())
        .nullBlk();
  }

  /** A device whose poll_lock holds and line transfers cost what the run's costs say. */
  private static NullBlk device(NullBlkSettings settings) {
    return new NullBlk(0, settings, COSTS.shortLockHoldPs(), COSTS.lineTransferPs());
  }

  /** {@code n} requests started on {@code hctx} by {@code cpu}, as blk-mq hands them over. */
  private static List<Request> started(HwCtx hctx, int cpu, int n) {
    List<Request> rqs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Request rq = hctx.allocRequest(cpu, null, 0);
      hctx.dispatched(rq);
      rqs.add(rq);
    }
    return rqs;
  }

  private static long calls(CostLedger ledger, int cpu, String step) {
    CostLedger.Entry e = ledger.steps(cpu).get(step);
    return e == null ? 0 : e.calls();
  }

  private static void balanced(NullBlk nb) {
    Books books = new Books();
    nb.audit(books);
    assertTrue(books.balanced(), books.violations().toString());
  }

  /**
   * docs/kernel.md 3.3, null_queue_rq step 5 and null_poll: nothing ends a polled request but a
   * poll.
   */
  @Test
  void aPollQueuesRequestShouldGoOnThePollListAndEndOnlyInNullPoll() {
    NullBlk nb = device(DEFAULTS.nullBlk());
    NullMqOps ops = new NullMqOps(nb, COSTS);
    HwCtx poll = new HwCtx(1, HctxType.POLL, 64, 1);
    List<Request> rqs = started(poll, 0, 3);

    NullMqOps.QueueRqDone q = ops.nullQueueRq(1, rqs, 0, CpuTime.SUBMIT, 1_000);
    assertEquals(rqs, q.onPollList());
    assertTrue(q.completed().isEmpty(), "irqmode does not apply to a poll queue");
    assertTrue(q.timers().isEmpty());
    assertTrue(q.raised().isEmpty());
    rqs.forEach(rq -> assertEquals(RqState.IN_FLIGHT, rq.state()));
    assertEquals(3, nb.pollListSize(1));

    NullMqOps.PollDone p = ops.nullPoll(1, 0, CpuTime.POLL, q.atPs());
    assertEquals(rqs, p.found(), "in the order queued");
    rqs.forEach(rq -> assertEquals(RqState.COMPLETE, rq.state()));
    assertEquals(3, calls(ops.ledger(), 0, "null_poll"));
    balanced(nb);
  }

  /**
   * docs/kernel.md 3.3, null_poll step 1: 5.16's null_poll splices the whole list, whatever else.
   */
  @Test
  void nullPollShouldSpliceTheWholePollListAndFindNothingAfter() {
    NullBlk nb = device(DEFAULTS.nullBlk());
    NullMqOps ops = new NullMqOps(nb, COSTS);
    HwCtx poll = new HwCtx(1, HctxType.POLL, 64, 2);
    List<Request> first = started(poll, 0, 4);
    List<Request> second = started(poll, 1, 2);
    ops.nullQueueRq(1, first, 0, CpuTime.SUBMIT, 0);
    ops.nullQueueRq(1, second, 1, CpuTime.SUBMIT, 100_000);

    NullMqOps.PollDone p = ops.nullPoll(1, 0, CpuTime.POLL, 1_000_000);
    List<Request> all = new ArrayList<>(first);
    all.addAll(second);
    assertEquals(all, p.found(), "both CPUs' requests, in one poll");
    assertEquals(0, nb.pollListSize(1));
    NullMqOps.PollDone again = ops.nullPoll(1, 0, CpuTime.POLL, p.atPs());
    assertTrue(again.found().isEmpty());
    assertEquals(6, calls(ops.ledger(), 0, "null_poll"), "one call's work per request found");
  }

  /** docs/kernel.md 3.1 and 3.3 step 7: irqmode=0 is end_cmd inside queue_rq. */
  @Test
  void irqmodeZeroShouldEndEveryRequestInQueueRq() {
    NullBlk nb = device(params("null-blk.irqmode = 0"));
    NullMqOps ops = new NullMqOps(nb, COSTS);
    List<Request> rqs = started(new HwCtx(0, HctxType.DEFAULT, 64, 1), 0, 4);

    NullMqOps.QueueRqDone q = ops.nullQueueRq(0, rqs, 0, CpuTime.SUBMIT, 0);
    assertEquals(rqs, q.completed());
    assertFalse(q.viaCompleteRequest(), "end_cmd, not blk_mq_complete_request");
    assertTrue(q.timers().isEmpty() && q.raised().isEmpty() && q.onPollList().isEmpty());
    rqs.forEach(rq -> assertEquals(RqState.COMPLETE, rq.state()));
    balanced(nb);
  }

  /**
   * docs/kernel.md 3.3, blk_mq_complete_request_remote: with more than one hardware queue irqmode=1
   * completes in the caller's context, right in queue_rq.
   */
  @Test
  void irqmodeOneOnSeveralHardwareQueuesShouldCompleteInQueueRqThroughCompleteRequest() {
    NullBlk nb = device(params("null-blk { irqmode = 1, submit-queues = 1, poll-queues = 1 }"));
    NullMqOps ops = new NullMqOps(nb, COSTS);
    List<Request> rqs = started(new HwCtx(0, HctxType.DEFAULT, 64, 1), 0, 2);

    NullMqOps.QueueRqDone q = ops.nullQueueRq(0, rqs, 0, CpuTime.SUBMIT, 0);
    assertEquals(rqs, q.completed());
    assertTrue(q.viaCompleteRequest());
    assertTrue(q.raised().isEmpty(), "no BLOCK_SOFTIRQ on a tag set of two queues");
    assertEquals(0, calls(ops.ledger(), 0, "blk_mq_raise_softirq"));
  }

  /**
   * docs/kernel.md 3.3, blk_mq_complete_request_remote: on a tag set of one hardware queue
   * irqmode=1 raises BLOCK_SOFTIRQ, and null_complete_rq ends the requests when it runs.
   */
  @Test
  void irqmodeOneOnOneHardwareQueueShouldRaiseBlockSoftirqAndEndInNullCompleteRq() {
    NullBlk nb = device(params("null-blk { irqmode = 1, submit-queues = 1, poll-queues = 0 }"));
    NullMqOps ops = new NullMqOps(nb, COSTS);
    List<Request> rqs = started(new HwCtx(0, HctxType.DEFAULT, 64, 1), 0, 3);

    NullMqOps.QueueRqDone q = ops.nullQueueRq(0, rqs, 0, CpuTime.SUBMIT, 0);
    assertEquals(rqs, q.raised());
    assertTrue(q.completed().isEmpty(), "they end in the softirq, not in queue_rq");
    assertEquals(3, calls(ops.ledger(), 0, "blk_mq_complete_request"));
    assertEquals(3, calls(ops.ledger(), 0, "blk_mq_raise_softirq"));
    assertEquals(3, calls(ops.ledger(), 0, "null_queue_rq"));
    assertEquals(ops.ledger().totalPs(0), q.atPs(), "the raise is part of queue_rq's time");
    Books pending = new Books();
    nb.audit(pending);
    assertFalse(pending.balanced(), "left on blk_cpu_done until BLOCK_SOFTIRQ runs");

    NullMqOps.EndCmdDone e = ops.nullCompleteRq(rqs, 0, CpuTime.KSOFTIRQD, 5_000_000);
    assertEquals(rqs, e.rqs());
    assertEquals(3, calls(ops.ledger(), 0, "null_complete_rq"));
    assertEquals(
        5_000_000 + ops.ledger().time(0, CpuTime.KSOFTIRQD),
        e.atPs(),
        "null_complete_rq's time, charged to the softirq");
    balanced(nb);
  }

  /** docs/kernel.md 3.1 and 3.3 step 7: irqmode=2 starts an hrtimer of completion_nsec. */
  @Test
  void irqmodeTwoShouldArmATimerOfCompletionNsecAsEachQueueRqEnds() {
    NullBlk nb = device(params("null-blk { irqmode = 2, completion-nsec = 7000 }"));
    NullMqOps ops = new NullMqOps(nb, COSTS);
    List<Request> rqs = started(new HwCtx(0, HctxType.DEFAULT, 64, 1), 0, 3);
    long perRq = COSTS.callPs(KernelFn.NULL_QUEUE_RQ);

    NullMqOps.QueueRqDone q = ops.nullQueueRq(0, rqs, 0, CpuTime.SUBMIT, 2_000);
    List<NullBlk.Timer> expected = new ArrayList<>();
    for (int i = 0; i < rqs.size(); i++) {
      expected.add(new NullBlk.Timer(2_000 + (i + 1) * perRq + 7_000_000, rqs.get(i)));
    }
    assertEquals(expected, q.timers());
    assertTrue(q.completed().isEmpty());
    rqs.forEach(rq -> assertEquals(RqState.IN_FLIGHT, rq.state()));

    NullMqOps.EndCmdDone e = ops.timersExpired(rqs, 0, CpuTime.IRQ, 10_000_000);
    assertEquals(0, e.timedOut());
    assertEquals(3, calls(ops.ledger(), 0, "null_cmd_timer_expired"));
    assertEquals(10_000_000 + ops.ledger().time(0, CpuTime.IRQ), e.atPs());
    rqs.forEach(rq -> assertEquals(RqState.COMPLETE, rq.state()));
    balanced(nb);
  }

  /** docs/kernel.md 3.3, null_poll step 1: a second CPU taking poll_lock while it is held spins. */
  @Test
  void pollLockContentionShouldBeChargedAsLockWaitWhenTwoCpusPollOneQueue() {
    long hold = COSTS.shortLockHoldPs();
    long line = COSTS.lineTransferPs();
    assertTrue(hold > 0 && line > 0, "the costs price the lock");
    NullBlk nb = device(DEFAULTS.nullBlk());
    NullMqOps ops = new NullMqOps(nb, COSTS);

    NullMqOps.PollDone mine = ops.nullPoll(1, 0, CpuTime.POLL, 1_000_000);
    NullMqOps.PollDone theirs = ops.nullPoll(1, 1, CpuTime.POLL, 1_000_000);
    assertEquals(0, ops.ledger().time(0, CpuTime.LOCK_WAIT), "the first takes it free");
    assertEquals(hold, ops.ledger().time(1, CpuTime.LOCK_WAIT), "the second spins out the hold");
    Map<String, CostLedger.Entry> steps = ops.ledger().steps(1);
    assertEquals(1, steps.get(LOCK_WAIT).calls());
    assertEquals(line, steps.get(LINE).ps(), "then pulls the lock's line from cpu0");
    assertEquals(1_000_000 + ops.ledger().totalPs(1), theirs.atPs());
    assertTrue(theirs.atPs() > mine.atPs());
  }

  /** docs/kernel.md 3.3, null_queue_rq step 5: queueing on a poll queue takes its poll_lock too. */
  @Test
  void queueRqOnAPollQueueShouldWaitForAPollThatHoldsItsPollLock() {
    NullBlk nb = device(DEFAULTS.nullBlk());
    NullMqOps ops = new NullMqOps(nb, COSTS);
    HwCtx poll = new HwCtx(1, HctxType.POLL, 64, 2);
    List<Request> rqs = started(poll, 1, 1);

    ops.nullPoll(1, 0, CpuTime.POLL, 1_000_000);
    NullMqOps.QueueRqDone q = ops.nullQueueRq(1, rqs, 1, CpuTime.SUBMIT, 1_000_000);
    long waited = ops.ledger().time(1, CpuTime.LOCK_WAIT);
    assertEquals(COSTS.shortLockHoldPs(), waited);
    assertEquals(
        1_000_000 + waited + COSTS.lineTransferPs() + COSTS.callPs(KernelFn.NULL_QUEUE_RQ),
        q.atPs(),
        "the wait and the line come before its queue_rq's own work");
  }

  /**
   * docs/kernel.md 3.1: requeue= alternates BLK_STS_RESOURCE and blk_mq_requeue_request, by each
   * queue's own requeue_selection; null_queue_rq is charged for every request all the same.
   */
  @Test
  void requeueFaultShouldAlternateBusyAndRequeueByEachQueuesSelection() {
    NullBlk nb = device(params("null-blk { submit-queues = 2, poll-queues = 0 }"));
    nb.injectRequeues(faults("1,100,0,-1", 1));
    NullMqOps ops = new NullMqOps(nb, COSTS);
    List<Request> a = started(new HwCtx(0, HctxType.DEFAULT, 64, 1), 0, 3);
    List<Request> b = started(new HwCtx(1, HctxType.DEFAULT, 64, 1), 0, 1);

    NullMqOps.QueueRqDone q0 = ops.nullQueueRq(0, a, 0, CpuTime.SUBMIT, 0);
    assertEquals(List.of(a.get(0), a.get(2)), q0.busy(), "odd selections: BLK_STS_RESOURCE");
    assertEquals(List.of(a.get(1)), q0.requeued(), "even ones: blk_mq_requeue_request");
    assertTrue(q0.completed().isEmpty() && q0.timers().isEmpty());
    NullMqOps.QueueRqDone q1 = ops.nullQueueRq(1, b, 0, CpuTime.SUBMIT, q0.atPs());
    assertEquals(b, q1.busy(), "hctx1's selection starts over");
    assertEquals(4, calls(ops.ledger(), 0, "null_queue_rq"));
    assertEquals(3, nb.busyRqs());
    assertEquals(1, nb.requeuedRqs());
    assertEquals(4, nb.requeueFaults());
  }

  /**
   * docs/kernel.md 3.1: timeout= leaves a request to blk-mq's timeout, io_timeout after its
   * queue_rq; null_timeout_rq ends it with BLK_STS_TIMEOUT.
   */
  @Test
  void timeoutFaultShouldLeaveTheRequestToBlkMqsTimeoutWhichEndsItWithEtimedout() {
    NullBlk nb = device(params("null-blk.irqmode = 1, queue.io-timeout = 100us"));
    nb.injectTimeouts(faults("1,100,0,1", 1));
    NullMqOps ops = new NullMqOps(nb, COSTS);
    List<Request> rqs = started(new HwCtx(0, HctxType.DEFAULT, 64, 1), 0, 2);
    long perRq = COSTS.callPs(KernelFn.NULL_QUEUE_RQ);

    NullMqOps.QueueRqDone q = ops.nullQueueRq(0, rqs, 0, CpuTime.SUBMIT, 0);
    assertEquals(List.of(new NullBlk.Timer(perRq + 100_000_000, rqs.get(0))), q.timers());
    assertEquals(List.of(rqs.get(1)), q.completed(), "times=1: the second completes");
    assertEquals(RqState.IN_FLIGHT, rqs.get(0).state(), "never completed by the driver");

    NullMqOps.EndCmdDone e = ops.timersExpired(List.of(rqs.get(0)), 0, CpuTime.IRQ, 100_000_000);
    assertEquals(1, e.timedOut());
    assertEquals(-NullBlk.ETIMEDOUT, rqs.get(0).error());
    assertEquals(1, calls(ops.ledger(), 0, "null_timeout_rq"));
    assertEquals(0, calls(ops.ledger(), 0, "null_cmd_timer_expired"));
    assertEquals(1, nb.timedOutRqs());
    balanced(nb);
  }

  /** docs/usage.md and kernel.md 3.3: 5.18's null_poll does not look at fake_timeout. */
  @Test
  void aRequestPickedForATimeoutOnAPollQueueShouldStillEndInNullPoll() {
    NullBlk nb = device(DEFAULTS.nullBlk());
    nb.injectTimeouts(faults("1,100,0,-1", 1));
    NullMqOps ops = new NullMqOps(nb, COSTS);
    List<Request> rqs = started(new HwCtx(1, HctxType.POLL, 64, 1), 0, 2);

    NullMqOps.QueueRqDone q = ops.nullQueueRq(1, rqs, 0, CpuTime.SUBMIT, 0);
    assertEquals(rqs, q.onPollList());
    assertTrue(q.timers().isEmpty(), "no timeout armed on a poll queue");
    assertEquals(rqs, ops.nullPoll(1, 0, CpuTime.POLL, q.atPs()).found());
    rqs.forEach(rq -> assertEquals(0, rq.error()));
    balanced(nb);
  }

  /**
   * docs/kernel.md 3.3, null_queue_rq steps 2 and 4: fake_timeout is drawn before the requeue
   * check, so a request turned away has used a timeout fault up without timing out.
   */
  @Test
  void timeoutShouldBeDrawnBeforeTheRequeueCheck() {
    NullBlk nb = device(DEFAULTS.nullBlk().withIrqmode(NullBlkSettings.IrqMode.NONE));
    nb.injectTimeouts(faults("1,100,0,1", 1));
    nb.injectRequeues(faults("1,100,0,1", 1));
    NullMqOps ops = new NullMqOps(nb, COSTS);
    List<Request> rqs = started(new HwCtx(0, HctxType.DEFAULT, 64, 1), 0, 2);

    NullMqOps.QueueRqDone q = ops.nullQueueRq(0, rqs, 0, CpuTime.SUBMIT, 0);
    assertEquals(List.of(rqs.get(0)), q.busy());
    assertEquals(List.of(rqs.get(1)), q.completed(), "the one timeout fault went with the first");
    assertTrue(q.timers().isEmpty());
  }

  private static FaultInjection faults(String attr, int nrCpus) {
    return new FaultInjection(
        FaultAttr.parse("fault", attr),
        cpu -> RandomGeneratorFactory.of("L64X128MixRandom").create(cpu),
        nrCpus);
  }
}

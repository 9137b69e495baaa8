package blksim.devices.drivers.null_blk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.NullBlkSettings;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.blk_mq.RqState;
import blksim.queues.books.Books;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** null_blk in blk-mq mode with poll queues (drivers/block/null_blk/main.c, 5.16+). */
class NullBlkTest {
  private final NullBlkSettings defaults = BlksimSettings.defaults().nullBlk();

  @Test
  void defaultsShouldBeTheModuleDefaults() {
    NullBlk nb = new NullBlk(0, defaults);
    assertEquals("nullb0", nb.diskName());
    assertEquals(250L << 30, nb.sizeBytes());
    assertEquals(512, nb.logicalBlockSize());
    assertEquals(2, nb.nrHwQueues(), "submit_queues=1 + poll_queues=1");
    assertEquals(HctxType.DEFAULT, nb.hctxType(0));
    assertEquals(HctxType.POLL, nb.hctxType(1));
    assertEquals(64, defaults.hwQueueDepth());
    assertEquals(NullBlkSettings.IrqMode.SOFTIRQ, defaults.irqmode());
    assertEquals(10_000, defaults.completionNsec());
  }

  @Test
  void pollShouldCompleteEverythingQueuedSinceTheLastPollInOrder() {
    NullBlk nb = new NullBlk(0, defaults);
    HwCtx hctx = new HwCtx(1, HctxType.POLL, 64, 1);
    List<Request> rqs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Request rq = hctx.allocRequest(0, null, 0);
      hctx.dispatched(rq);
      assertEquals(NullBlk.Queued.ON_POLL_LIST, nb.queueRq(1, rq));
      rqs.add(rq);
    }
    List<Request> found = new ArrayList<>();
    assertEquals(5, nb.poll(1, found));
    assertEquals(rqs, found);
    found.forEach(rq -> assertEquals(RqState.COMPLETE, rq.state()));
    assertEquals(0, nb.poll(1, new ArrayList<>()), "a poll of an empty list finds nothing");
    Books books = new Books();
    nb.audit(books);
    assertTrue(books.balanced(), books.violations().toString());
  }

  @Test
  void booksShouldSeeARequestLeftOnThePollList() {
    NullBlk nb = new NullBlk(0, defaults);
    HwCtx hctx = new HwCtx(1, HctxType.POLL, 64, 1);
    Request rq = hctx.allocRequest(0, null, 0);
    hctx.dispatched(rq);
    nb.queueRq(1, rq);
    Books books = new Books();
    nb.audit(books);
    assertFalse(books.balanced());
  }

  @Test
  void defaultQueuesShouldCompleteAsIrqmodeSays() {
    HwCtx hctx = new HwCtx(0, HctxType.DEFAULT, 64, 1);
    NullBlk softirq = new NullBlk(0, defaults);
    Request rq = hctx.allocRequest(0, null, 0);
    hctx.dispatched(rq);
    assertEquals(
        NullBlk.Queued.COMPLETE_REQUEST, softirq.queueRq(0, rq), "irqmode=1 is the default");
    assertEquals(RqState.COMPLETE, rq.state());

    NullBlkSettings none = defaults.withIrqmode(NullBlkSettings.IrqMode.NONE);
    Request rq2 = hctx.allocRequest(0, null, 0);
    hctx.dispatched(rq2);
    assertEquals(NullBlk.Queued.ENDED_INLINE, new NullBlk(0, none).queueRq(0, rq2));

    NullBlkSettings timer = defaults.withIrqmode(NullBlkSettings.IrqMode.TIMER);
    Request rq3 = hctx.allocRequest(0, null, 0);
    hctx.dispatched(rq3);
    NullBlk timed = new NullBlk(0, timer);
    assertEquals(NullBlk.Queued.TIMER, timed.queueRq(0, rq3));
    assertEquals(RqState.IN_FLIGHT, rq3.state(), "in flight until its timer fires");
    Books armed = new Books();
    timed.audit(armed);
    assertFalse(armed.balanced(), "a timer still armed is in the books");
    timed.timerExpired(rq3);
    assertEquals(RqState.COMPLETE, rq3.state());
    Books books = new Books();
    timed.audit(books);
    assertTrue(books.balanced(), books.violations().toString());
    assertThrows(IllegalStateException.class, () -> timed.timerExpired(rq3), "no second expiry");
  }

  /**
   * nq->poll_lock is the device's: a CPU that queues while another holds it spins, then pulls its
   * line.
   */
  @Test
  void queueingOnAPollQueueShouldTakeItsPollLockAndWaitForAnotherCpu() {
    NullBlk nb = new NullBlk(0, defaults, 5, 30);
    HwCtx hctx = new HwCtx(1, HctxType.POLL, 64, 2);
    List<Request> two = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Request rq = hctx.allocRequest(0, null, 0);
      hctx.dispatched(rq);
      two.add(rq);
    }
    NullBlk.QueueBatch first = nb.queueRqs(1, two, 0, 0, 10);
    assertEquals(2, first.locks().size());
    assertEquals(0, first.lockedPs(), "its own lock, uncontended");
    Request other = hctx.allocRequest(1, null, 0);
    hctx.dispatched(other);
    // cpu0's second acquisition, at 10 ps, holds it until 15: cpu1 at 12 spins 3, then its line
    NullBlk.QueueBatch second = nb.queueRqs(1, List.of(other), 1, 12, 10);
    assertEquals(3, second.locks().get(0).waitPs());
    assertEquals(30, second.locks().get(0).transferPs());
    assertEquals(33, second.lockedPs());
    NullBlk.PollResult polled = nb.pollQueue(1, 0, 1_000);
    assertEquals(3, polled.found().size());
    assertEquals(30, polled.lock().transferPs(), "cpu1 held it last");
  }

  @Test
  void timerModeShouldArmATimerThatFiresCompletionNsecAfterItsQueueRq() {
    NullBlkSettings timer =
        BlksimSettings.from(
                com.typesafe.config.ConfigFactory.parseString(
                        "blksim.null-blk { irqmode = 2, completion-nsec = 1000 }")
                    .withFallback(com.typesafe.config.ConfigFactory.defaultReference())
                    .resolve())
            .nullBlk();
    NullBlk nb = new NullBlk(0, timer, 100, 30);
    HwCtx hctx = new HwCtx(0, HctxType.DEFAULT, 64, 1);
    Request a = hctx.allocRequest(0, null, 0);
    Request b = hctx.allocRequest(0, null, 0);
    hctx.dispatched(a);
    hctx.dispatched(b);
    NullBlk.QueueBatch q = nb.queueRqs(0, List.of(a, b), 0, 500, 10);
    assertEquals(
        List.of(
            new NullBlk.Timer(500 + 10 + 1_000_000, a), new NullBlk.Timer(500 + 20 + 1_000_000, b)),
        q.timers());
    assertTrue(q.completed().isEmpty());
    assertTrue(q.locks().isEmpty(), "a default queue takes no poll_lock");
  }
}

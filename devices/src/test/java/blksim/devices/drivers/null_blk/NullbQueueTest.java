package blksim.devices.drivers.null_blk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.time.SpinLock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One hardware queue's {@code struct nullb_queue} (drivers/block/null_blk/main.c 5.16; docs/
 * kernel.md 3.1, 3.3): the poll list that {@code null_queue_rq} appends to and {@code null_poll}
 * splices under {@code poll_lock}, and the requeue selection that alternates the fault's answers.
 */
class NullbQueueTest {
  private static List<Request> requests(int n) {
    HwCtx hctx = new HwCtx(1, HctxType.POLL, 64, 1);
    List<Request> rqs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Request rq = hctx.allocRequest(0, null, 0);
      hctx.dispatched(rq);
      rqs.add(rq);
    }
    return rqs;
  }

  @Test
  void nullPollShouldSpliceTheWholeListInTheOrderQueuedAndLeaveItEmpty() {
    NullbQueue nq = new NullbQueue(HctxType.POLL, "nullb0-hctx1 poll_lock");
    List<Request> rqs = requests(3);
    rqs.forEach(nq::addToPollList); // list_add_tail, one null_queue_rq each
    assertEquals(3, nq.pollListSize());
    List<Request> polled = new ArrayList<>();
    assertEquals(3, nq.splicePollList(polled));
    assertEquals(rqs, polled);
    assertEquals(0, nq.pollListSize());
    assertEquals(0, nq.splicePollList(polled), "a poll that finds nothing");
    assertEquals(HctxType.POLL, nq.type());
  }

  @Test
  void theRequeueSelectionShouldAlternateBusyAndRequeueBusyFirst() {
    NullbQueue nq = new NullbQueue(HctxType.DEFAULT, "nullb0-hctx0 poll_lock");
    assertTrue(nq.nextRequeueIsBusy(), "++requeue_selection is 1: BLK_STS_RESOURCE");
    assertFalse(nq.nextRequeueIsBusy(), "2: blk_mq_requeue_request");
    assertTrue(nq.nextRequeueIsBusy());
    assertFalse(nq.nextRequeueIsBusy());
  }

  @Test
  void aSecondCpuOnThePollLockShouldWaitForItAndPullItsLine() {
    NullbQueue nq = new NullbQueue(HctxType.POLL, "nullb0-hctx1 poll_lock");
    SpinLock.Acquired first = nq.lockPollList(0, 1_000, 500, 80);
    SpinLock.Acquired second = nq.lockPollList(1, 1_200, 500, 80);
    assertEquals(0, first.waitPs(), "free: taken at once");
    assertTrue(second.waitPs() > 0, "held by CPU 0 until 1500: CPU 1 spins");
    assertEquals(80, second.transferPs(), "the lock's line comes from CPU 0");
  }
}

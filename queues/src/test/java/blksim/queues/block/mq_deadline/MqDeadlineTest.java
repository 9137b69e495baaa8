package blksim.queues.block.mq_deadline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.books.Books;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** mq-deadline's order (block/mq-deadline.c 5.16) and a scheduler's two tag sets. */
class MqDeadlineTest {
  private final HwCtx hctx = new HwCtx(0, HctxType.DEFAULT, 128, 1, null, 64);

  private Request rq(long sector) {
    Bio bio = Bio.onStack(0);
    bio.setRange(sector, 512);
    return hctx.allocRequest(0, bio, 0);
  }

  private List<Long> dispatchAll(long atPs) {
    List<Long> order = new ArrayList<>();
    for (Request r = hctx.elevator().dispatch(atPs);
        r != null;
        r = hctx.elevator().dispatch(atPs)) {
      order.add(r.bio().sector());
    }
    return order;
  }

  @Test
  void aQueueRunShouldStartAtTheOldestAndGoUpInSectorOrder() {
    for (long s : new long[] {50, 10, 30, 20, 40}) {
      hctx.insert(rq(s), 0);
    }
    // the FIFO's head first (no next_rq yet); nothing above it, so the next oldest, then upwards
    assertEquals(List.of(50L, 10L, 20L, 30L, 40L), dispatchAll(0));
    assertNull(hctx.elevator().dispatch(0));
  }

  @Test
  void anExpiredFifoHeadShouldEndTheBatchAfterSixteen() {
    List<Request> rqs = new ArrayList<>();
    rqs.add(rq(200));
    rqs.add(rq(10));
    for (long s = 201; s <= 220; s++) {
      rqs.add(rq(s));
    }
    MqDeadlineTest other = new MqDeadlineTest();
    List<Request> same = new ArrayList<>();
    for (Request r : rqs) {
      same.add(other.rq(r.bio().sector()));
    }
    rqs.forEach(r -> hctx.insert(r, 0));
    same.forEach(r -> other.hctx.insert(r, 0));
    // not expired: 200, then its batch 201..215, then on in sector order from next_rq
    List<Long> fresh = dispatchAll(0);
    assertEquals(List.of(200L, 201L, 202L), fresh.subList(0, 3));
    assertEquals(216L, fresh.get(16), "a new batch goes on from next_rq");
    assertEquals(10L, fresh.get(fresh.size() - 1), "the low sector waits for the end");
    // read_expire passed: after the batch of 16 the FIFO's head, sector 10, goes first
    List<Long> late = other.dispatchAll(MqDeadline.READ_EXPIRE_PS);
    assertEquals(10L, late.get(16), "the expired head ends the batch: " + late);
  }

  @Test
  void eachRequestShouldTakeADriverTagAtDispatchAndGiveBothBack() {
    List<Request> rqs = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      Request r = rq(i);
      assertTrue(r.tag() < 128, "a sched tag");
      hctx.insert(r, 0);
      rqs.add(r);
    }
    for (Request r : rqs) {
      assertEquals(r, hctx.elevator().dispatch(0));
      hctx.getDriverTag(r, 0);
    }
    assertEquals(64, hctx.driverTags().inUse());
    Request more = rq(1000);
    hctx.insert(more, 0);
    hctx.elevator().dispatch(0);
    assertFalse(hctx.getDriverTag(more, 0).got(), "all 64 are held");
    Books books = new Books();
    hctx.audit(books);
    assertTrue(!books.balanced(), "requests still out");
    rqs.forEach(r -> hctx.freeRequest(r, 0, 1));
    assertEquals(0, hctx.driverTags().inUse());
    assertEquals(1, hctx.tags().inUse(), "the one without a driver tag holds its sched tag");
  }

  @Test
  void aTreeInsertShouldWalkAboutLog2OfItsSize() {
    assertEquals(0, MqDeadline.levels(0));
    assertEquals(1, MqDeadline.levels(1));
    assertEquals(5, MqDeadline.levels(31));
    assertEquals(6, MqDeadline.levels(32));
  }
}

package blksim.queues.block.blk_mq_tag;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Plug;
import blksim.queues.block.blk_mq.PlugAlloc;
import blksim.queues.block.blk_mq.QueueMap;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** sbitmap tags (lib/sbitmap.c), requests and plugs of blk-mq. */
class TagsTest {

  @Test
  void shouldHandOutEveryTagOnceThenNoTag() {
    Tags tags = new Tags(64, 1);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      assertTrue(seen.add(tags.get(0)));
    }
    assertEquals(64, tags.inUse());
    assertEquals(Tags.NO_TAG, tags.get(0));
  }

  @Test
  void shouldFollowTheAllocationHint() {
    Tags tags = new Tags(8, 2);
    assertEquals(0, tags.get(0));
    assertEquals(1, tags.get(0), "the hint moves past a tag taken at the hint");
    tags.put(0, 0);
    assertEquals(0, tags.get(0), "a freed tag becomes the freeing CPU's hint");
    assertEquals(2, tags.get(1), "another CPU starts at its own hint, 0, taken: the next free tag");
  }

  @Test
  void shouldRefuseToFreeATagNotAllocated() {
    Tags tags = new Tags(4, 1);
    assertThrows(IllegalStateException.class, () -> tags.put(2, 0));
    int t = tags.get(0);
    tags.put(t, 0);
    assertThrows(IllegalStateException.class, () -> tags.put(t, 0));
  }

  @Test
  void hwCtxBooksShouldSeeATagNotFreed() {
    HwCtx hctx = new HwCtx(1, HctxType.POLL, 4, 1);
    Request rq = hctx.allocRequest(0, null, 0);
    hctx.dispatched(rq);
    rq.markComplete();
    Books open = new Books();
    hctx.audit(open);
    assertFalse(open.balanced());
    hctx.freeRequest(rq, 0, 0);
    Books closed = new Books();
    hctx.audit(closed);
    assertTrue(closed.balanced(), closed.violations().toString());
    assertThrows(InvariantBroken.class, () -> hctx.freeRequest(rq, 0, 0));
  }

  @Test
  void plugShouldFlushBeforeThe33rdRequest() {
    HwCtx hctx = new HwCtx(0, HctxType.POLL, 128, 1);
    Plug plug = new Plug(Plug.BLK_MAX_REQUEST_COUNT);
    for (int i = 0; i < 70; i++) {
      plug.add(hctx.allocRequest(0, null, 0));
    }
    List<List<Request>> flushes = plug.finish();
    assertEquals(List.of(32, 32, 6), flushes.stream().map(List::size).toList());
  }

  @Test
  void queueMapShouldPlacePollQueuesAfterDefaultQueues() {
    QueueMap m = QueueMap.nullBlk(2, 3);
    assertEquals(1, m.mapQueue(5, HctxType.DEFAULT));
    assertEquals(2 + 5 % 3, m.mapQueue(5, HctxType.POLL));
    assertEquals(0, m.mapQueue(0, HctxType.READ), "no read queues: the default map");
    assertEquals(
        0, QueueMap.nullBlk(1, 0).mapQueue(3, HctxType.POLL), "no poll queues: the default map");
  }

  @Test
  void aBatchShouldComeFromOneWordOrNotAtAll() {
    // sbitmap_calculate_shift: 64 tags give 16-bit words, 128 give 32, 256 give 64
    assertEquals(16, new Tags(64, 1).bitsPerWord());
    assertEquals(32, new Tags(128, 1).bitsPerWord());
    assertEquals(64, new Tags(256, 1).bitsPerWord());
    Tags t64 = new Tags(64, 1);
    assertEquals(0, t64.getBatch(0, 32).length, "32 tags never fit a 16-bit word");
    assertEquals(0, t64.inUse());
    int[] sixteen = t64.getBatch(0, 16);
    assertArrayEquals(java.util.stream.IntStream.range(0, 16).toArray(), sixteen);
    assertEquals(16, t64.inUse());
    assertArrayEquals(
        java.util.stream.IntStream.range(16, 32).toArray(),
        t64.getBatch(0, 16),
        "the first word is full: the next one");
    Tags t128 = new Tags(128, 1);
    assertEquals(32, t128.getBatch(0, 32).length, "a whole 32-bit word");
  }

  @Test
  void aBatchShouldTakeOnlyTheFreeBitsOfItsRange() {
    Tags t = new Tags(128, 1);
    int[] first = t.getBatch(0, 32);
    t.putBatch(new int[] {0, 5}, 2, 0);
    // the hint is now 5 (the last tag freed), in word 0, whose first free bit is 0: 0 + 32 fits
    int[] again = t.getBatch(0, 32);
    assertArrayEquals(new int[] {0, 5}, again, "bits 0..31, of which only 0 and 5 were free");
    assertEquals(32, first.length);
    assertEquals(32, t.inUse());
  }

  @Test
  void aBatchedClearShouldCostOneAtomicPerWordRun() {
    Tags t = new Tags(64, 1);
    int[] a = t.getBatch(0, 16);
    int[] b = t.getBatch(0, 16);
    int[] both = new int[32];
    System.arraycopy(a, 0, both, 0, 16);
    System.arraycopy(b, 0, both, 16, 16);
    Tags.Cleared c = t.putBatch(both, 32, 0);
    assertEquals(2, c.runs(), "two words, one andnot each");
    assertEquals(0, t.inUse());
    assertThrows(IllegalStateException.class, () -> t.putBatch(new int[] {3}, 1, 0));
  }

  @Test
  void aPlugShouldCacheItsBatchAndGiveBackWhatNoBioTook() {
    HwCtx hctx = new HwCtx(1, HctxType.POLL, 128, 1);
    PlugAlloc plug = new PlugAlloc(hctx, 32);
    assertEquals(PlugAlloc.How.BATCH, plug.get(0, null, 0).how());
    for (int i = 1; i < 10; i++) {
      assertEquals(PlugAlloc.How.CACHED, plug.get(0, null, 0).how());
    }
    assertEquals(32, hctx.tags().inUse(), "the plug holds the rest");
    assertEquals(22, plug.finish(0, 0), "blk_mq_free_plug_rqs");
    assertEquals(10, hctx.tags().inUse());
    PlugAlloc small = new PlugAlloc(new HwCtx(1, HctxType.POLL, 64, 1), 32);
    assertEquals(PlugAlloc.How.BATCH_MISSED, small.get(0, null, 0).how());
    assertEquals(PlugAlloc.How.SINGLE, small.get(0, null, 0).how(), "nr_ios is 1 after a try");
    assertEquals(0, small.finish(0, 0));
  }
}

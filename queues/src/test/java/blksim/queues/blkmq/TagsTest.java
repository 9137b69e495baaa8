package blksim.queues.blkmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    Plug plug = new Plug();
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
}

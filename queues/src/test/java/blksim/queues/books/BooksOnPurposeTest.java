package blksim.queues.books;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.io_uring.CqRing;
import blksim.queues.io_uring.Cqe;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.io_uring.SqRing;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each end-of-run check of the queues' models, broken on purpose and seen to fire. A whole run
 * stopped mid-way shows most of them (actors' BooksOnPurposeTest); these are the ones that only a
 * bug could break, broken here through the models' fields.
 */
class BooksOnPurposeTest {

  private static List<String> books(java.util.function.Consumer<Books> audit) {
    Books b = new Books();
    audit.accept(b);
    return b.violations();
  }

  private static void fires(List<String> violations, String expected) {
    assertTrue(
        violations.stream().anyMatch(v -> v.contains(expected)),
        "expected '" + expected + "' in " + violations);
  }

  /** Sets {@code field} of {@code target}, breaking what the model keeps consistent. */
  static void corrupt(Object target, String field, Object value) {
    try {
      Field f = target.getClass().getDeclaredField(field);
      f.setAccessible(true);
      f.set(target, value);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  static Object read(Object target, String field) {
    try {
      Field f = target.getClass().getDeclaredField(field);
      f.setAccessible(true);
      return f.get(target);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aHealthyModelShouldBalance() {
    assertEquals(List.of(), books(b -> new HwCtx(0, HctxType.POLL, 4, 1).audit(b)));
    assertEquals(List.of(), books(b -> new SqRing(8).audit(b, "cpu0")));
    assertEquals(List.of(), books(b -> new CqRing(8).audit(b, "cpu0")));
  }

  @Test
  void aRequestTurnedAwayAndNeverDispatchedAgainShouldBeCaught() {
    HwCtx hctx = new HwCtx(0, HctxType.DEFAULT, 4, 1);
    BioSet set = new BioSet("test", BlksimSettings.defaults().bioset(), 1);
    Bio bio = set.bioAllocBioset(0, false, 0).bio();
    Request rq = hctx.allocRequest(0, bio, 0);
    hctx.dispatched(rq);
    hctx.turnedAway(rq, false);
    List<String> v = books(hctx::audit);
    fires(v, "hctx0: requests turned away (dispatch or requeue list) vs dispatched again");
    fires(v, "hctx0: tags still allocated at the end of the run");
    fires(v, "hctx0: request tag 0 still allocated");
    fires(v, "hctx0: requests dispatched vs freed");
  }

  @Test
  void ringsOutOfOrderShouldBeCaught() {
    SqRing sq = new SqRing(8);
    corrupt(sq, "khead", 5L);
    fires(books(b -> sq.audit(b, "cpu0")), "cpu0: SQ ring out of order (khead 5, ktail 0");
    CqRing cq = new CqRing(8);
    corrupt(cq, "ktail", 9L);
    fires(books(b -> cq.audit(b, "cpu0")), "cpu0: CQ ring out of order (khead 0, ktail 9)");
  }

  @Test
  @SuppressWarnings("unchecked")
  void cqesLeftOnTheOverflowListShouldBeCaught() {
    IoRingCtx ctx = new IoRingCtx(new SqRing(8), new CqRing(8));
    ((ArrayDeque<Cqe>) read(ctx, "overflowList")).add(new Cqe(1, 512, 0));
    fires(books(b -> ctx.audit(b, "cpu0")), "cpu0: 1 CQEs still on the overflow list");
  }

  @Test
  void aBioCacheWhoseCountDisagreesWithItsListsShouldBeCaught() {
    BioSet set = new BioSet("test", BlksimSettings.defaults().bioset(), 1, true);
    Object cache = ((Object[]) read(set, "caches"))[0];
    corrupt(cache, "nr", 3);
    corrupt(cache, "nrIrq", 2);
    List<String> v = books(set::audit);
    fires(v, "test: cpu0 cache nr vs its free list (expected 3, found 0)");
    fires(v, "test: cpu0 cache nr_irq vs its IRQ list (expected 2, found 0)");
  }

  @Test
  void bioSlabBooksThatDoNotAddUpShouldBeCaught() {
    BioSet set = new BioSet("test", BlksimSettings.defaults().bioset(), 1);
    Bio bio = set.bioAllocBioset(0, false, 0).bio();
    fires(books(set::audit), "test: bios handed out and never put (expected 0, found 1)");
    corrupt(set, "outstanding", 0L);
    fires(
        books(set::audit), "test: bios taken from the slab vs bios cached, reserved or in flight");
    assertTrue(bio.inUse());
  }
}

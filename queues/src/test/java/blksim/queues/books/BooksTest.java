package blksim.queues.books;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The two kinds of check, in the books of a run that drained and of one whose drain was cut. */
class BooksTest {

  private static void openChecks(Books b) {
    b.drained(false, "cpu0: the submitter thread never ended");
    b.drainedEqual(10, 7, "cpu0: io_uring requests submitted vs completed");
    b.held(3, "hctx0: tags still allocated at the end of the run");
  }

  @Test
  void aDrainedRunShouldCountEveryOpenCheckAsAViolation() {
    Books b = new Books();
    openChecks(b);
    assertFalse(b.balanced());
    assertFalse(b.cut());
    assertEquals(
        List.of(
            "cpu0: the submitter thread never ended",
            "cpu0: io_uring requests submitted vs completed (expected 10, found 7)",
            "hctx0: tags still allocated at the end of the run (expected 0, found 3)"),
        b.violations());
    assertEquals(List.of(), b.leftInFlight());
  }

  @Test
  void aCutRunShouldLeaveTheChecksOfADrainOpenNotViolated() {
    Books b = Books.cutShort();
    openChecks(b);
    assertTrue(b.balanced(), b.violations().toString());
    assertTrue(b.cut());
    assertEquals(3, b.leftInFlight().size());
    assertEquals(
        "hctx0: tags still allocated at the end of the run (expected 0, found 3)",
        b.leftInFlight().get(2));
  }

  @Test
  void aCutRunShouldStillFailWhatHoldsAtEveryStep() {
    Books b = Books.cutShort();
    b.check(false, "cpu0: CQ ring out of order");
    b.checkEqual(5, 6, "blkdev_dio_pool: bios taken from the slab vs bios cached");
    b.held(-1, "hctx0: tags still allocated at the end of the run");
    assertFalse(b.balanced());
    assertEquals(3, b.violations().size());
    assertEquals(
        "hctx0: tags still allocated at the end of the run (expected 0, found -1)",
        b.violations().get(2));
    assertEquals(List.of(), b.leftInFlight());
  }

  @Test
  void checksThatHoldShouldLeaveNothingInEitherBooks() {
    for (Books b : List.of(new Books(), Books.cutShort())) {
      b.check(true, "x");
      b.checkEqual(2, 2, "x");
      b.drained(true, "x");
      b.drainedEqual(4, 4, "x");
      b.held(0, "x");
      assertTrue(b.balanced());
      assertEquals(List.of(), b.leftInFlight());
    }
  }
}

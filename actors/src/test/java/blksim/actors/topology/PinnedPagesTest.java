package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.CostLedger;
import org.junit.jupiter.api.Test;

/** -B0: each I/O pins, dirties and unpins the pages of its buffer, so its size has a price. */
class PinnedPagesTest {
  private static RunResult run(int bs) {
    return Runs.sequential(
        "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = "
            + bs
            + ", fixed-buffers = false }\nblksim.run.runtime = 5ms\n"
            + "blksim.interference.enabled = false");
  }

  private static double nsPerIo(RunResult r, String fn) {
    CostLedger.Entry e = r.ledger().steps(0).get(fn);
    return e == null ? 0 : e.ps() / 1000.0 / r.reaps();
  }

  @Test
  void sixtyFourKibShouldCostMorePerIoThanHalfAKibAndThePinsShouldSayWhere() {
    RunResult small = run(512);
    RunResult big = run(65536);
    assertTrue(small.books().balanced() && big.books().balanced());
    double total512 = small.ledger().totalPs(0) / 1000.0 / small.reaps();
    double total64k = big.ledger().totalPs(0) / 1000.0 / big.reaps();
    double gup = nsPerIo(big, "get_user_pages_fast") - nsPerIo(small, "get_user_pages_fast");
    double release = nsPerIo(big, "bio_release_pages") - nsPerIo(small, "bio_release_pages");
    // 15 more pages: each a pin, a counter and two dirty-bit tests, its PTE and its unpin
    assertEquals(15 * (4.5 + 1 + 1.25 + 1.25), gup, 0.01);
    assertEquals(15 * (4.5 + 1 + 1.25), release, 0.01);
    assertTrue(total64k > total512 + gup + release, total512 + " vs " + total64k);
    // 16 vecs do not fit the bio's 4 inline ones: no per-CPU cache, a bvec array from a slab
    assertNull(big.ledger().steps(0).get("bio_alloc_kiocb"));
    assertEquals(big.reaps(), big.ledger().steps(0).get("bio_alloc_bioset").calls(), 1.0);
    assertTrue(nsPerIo(small, "bio_alloc_kiocb") > 0, "512 B: one vec, from the cache");
  }
}

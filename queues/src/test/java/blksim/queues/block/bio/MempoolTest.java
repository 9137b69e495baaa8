package blksim.queues.block.bio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@code mempool_t} over the bio slab (mm/mempool.c {@code mempool_init}, {@code mempool_alloc},
 * {@code mempool_free}; mm/slub.c's per-CPU slab and its slow path): the reserve, and where the
 * node's {@code list_lock} is taken.
 */
class MempoolTest {
  @Test
  void theReserveShouldBeAllocatedUpFrontAndAllocsServedByTheSlab() {
    Mempool pool = new Mempool(4, null, 100);
    assertEquals(4, pool.reserve(), "min_nr elements at mempool_init");
    assertEquals(4, pool.slabAllocs());
    Bio a = pool.alloc(0);
    Bio b = pool.alloc(0);
    assertNotEquals(a.id(), b.id());
    assertEquals(4, pool.reserve(), "the slab never fails here: the reserve is not touched");
    assertEquals(6, pool.slabAllocs());
  }

  @Test
  void aFreeShouldRefillTheReserveBeforeItGivesBackToTheSlab() {
    Mempool pool = new Mempool(1, null, 0);
    Bio a = pool.alloc(0);
    Bio b = pool.alloc(0);
    pool.free(0, a);
    assertEquals(1, pool.slabFrees(), "the reserve is full: kmem_cache_free");
    assertEquals(1, pool.reserve());
    pool.free(0, b);
    assertEquals(2, pool.slabFrees());
  }

  @Test
  void everySlabsWorthOfAllocsOrFreesOnACpuShouldTakeTheSlowPath() {
    Mempool pool = new Mempool(0, null, 0, 2, 3);
    boolean[] slow = new boolean[6];
    Bio[] bios = new Bio[6];
    for (int i = 0; i < 6; i++) {
      bios[i] = pool.alloc(0);
      slow[i] = pool.lastSlowPath();
    }
    assertEquals("[false, false, true, false, false, true]", java.util.Arrays.toString(slow));
    bios[0] = pool.alloc(1);
    assertFalse(pool.lastSlowPath(), "each CPU has its own slab");
    for (int i = 1; i <= 3; i++) {
      pool.free(1, bios[i]);
    }
    assertTrue(pool.lastSlowPath(), "a CPU's third free fills a slab: __slab_free");
    pool.free(0, bios[4]);
    assertFalse(pool.lastSlowPath());
  }
}

package blksim.queues.block.bio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * One CPU's {@code struct bio_alloc_cache} (block/bio.c 5.16 to 6.2; docs/kernel.md on the bio
 * cache): the free list and its count, and 6.2's IRQ list that a task-context alloc splices.
 */
class BioAllocCacheTest {
  private final BioAllocCache cache = new BioAllocCache();

  @Test
  void theFreeListShouldHandOutTheBioFreedLastFirst() {
    Bio a = Bio.onStack(1);
    Bio b = Bio.onStack(2);
    assertEquals(1, cache.push(a));
    assertEquals(2, cache.push(b), "bio_put_percpu_cache: nr counts the list");
    assertSame(b, cache.pop(), "LIFO: the hottest bio first");
    assertSame(a, cache.pop());
    assertEquals(0, cache.nr());
    assertNull(cache.pop(), "empty: bio_alloc_bioset goes to the mempool");
    assertEquals(0, cache.nr(), "an empty pop leaves nr alone");
  }

  @Test
  void bioPutInInterruptShouldGoOnTheIrqListUntilASpliceMakesItTheFreeList() {
    Bio task = Bio.onStack(1);
    Bio irq1 = Bio.onStack(2);
    Bio irq2 = Bio.onStack(3);
    cache.push(task);
    assertEquals(1, cache.pushIrq(irq1));
    assertEquals(2, cache.pushIrq(irq2), "free_list_irq and nr_irq (6.2)");
    assertEquals(1, cache.nr(), "the free list does not see them");
    assertSame(task, cache.pop());
    assertNull(cache.pop(), "a free list empty though the IRQ list holds bios");
    cache.spliceIrq(); // bio_alloc_irq_cache_splice, with interrupts off
    assertEquals(2, cache.nr());
    assertEquals(0, cache.nrIrq());
    assertEquals(0, cache.irqListSize());
    assertSame(irq2, cache.pop(), "the IRQ list's order kept: its last freed first");
    assertSame(irq1, cache.pop());
  }
}

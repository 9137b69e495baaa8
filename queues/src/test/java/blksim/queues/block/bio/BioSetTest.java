package blksim.queues.block.bio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BioSetSettings;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-CPU bio cache policy of block/bio.c in 5.16-5.18 (docs/kernel.md 5.1). */
class BioSetTest {
  private static final BioSetSettings KERNEL = new BioSetSettings(true, 512, 64, 4, 2, 32);

  private static Bio alloc(BioSet set, int cpu) {
    Bio b = set.allocPercpuCache(cpu, true, 0).bio();
    return b != null ? b : set.allocBioset(cpu, true, 0).bio();
  }

  @Test
  void shouldReuseTheLastBioPutOnTheSameCpu() {
    BioSet set = new BioSet("test", KERNEL, 2);
    assertNull(set.allocPercpuCache(0, true, 0).bio(), "an empty cache misses");
    Bio a = set.allocBioset(0, true, 0).bio();
    assertTrue(
        a.percpuCache(), "a fresh bio asked for with IOCB_ALLOC_CACHE joins the cache on put");
    Bio b = alloc(set, 0);
    assertEquals(BioSet.PutPath.CACHED, set.put(0, a).path());
    assertEquals(BioSet.PutPath.CACHED, set.put(0, b).path());
    assertSame(b, set.allocPercpuCache(0, true, 0).bio(), "LIFO");
    assertSame(a, set.allocPercpuCache(0, true, 0).bio());
    assertEquals(2, set.cacheHits());
  }

  @Test
  void shouldFreeToTheCacheOfThePuttingCpu() {
    BioSet set = new BioSet("test", KERNEL, 2);
    Bio a = alloc(set, 0);
    set.put(1, a);
    assertNull(set.allocPercpuCache(0, true, 0).bio());
    assertSame(a, set.allocPercpuCache(1, true, 0).bio());
  }

  @Test
  void shouldPruneSlackBiosWhenPastMaxPlusSlack() {
    BioSet set = new BioSet("test", KERNEL, 1);
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 577; i++) {
      bios.add(alloc(set, 0));
    }
    for (int i = 0; i < 576; i++) {
      set.put(0, bios.get(i));
    }
    assertEquals(0, set.pruned(), "576 = ALLOC_CACHE_MAX + ALLOC_CACHE_SLACK is still kept");
    BioSet.Put put = set.put(0, bios.get(576));
    assertEquals(64, set.pruned(), "the 577th frees ALLOC_CACHE_SLACK bios");
    assertEquals(64, put.pruned(), "that put pays a bio_free for each");
    // from the head of free_list: the 577th itself and the 63 put just before it; the oldest stay
    Bio next = set.allocPercpuCache(0, true, 0).bio();
    assertSame(bios.get(512), next);
    set.put(0, next);
    Books books = new Books();
    set.audit(books);
    assertTrue(books.balanced(), books.violations().toString());
  }

  @Test
  void shouldUseTheMempoolWithoutCacheOrWithoutAllocCacheOrForManyVecs() {
    BioSet off = new BioSet("off", new BioSetSettings(false, 512, 64, 4, 2, 32), 1);
    assertNull(off.allocPercpuCache(0, true, 0).bio());
    Bio b = off.allocBioset(0, true, 0).bio();
    assertFalse(b.percpuCache());
    assertEquals(BioSet.PutPath.FREED, off.put(0, b).path());

    BioSet on = new BioSet("on", KERNEL, 1);
    assertFalse(on.allocBioset(0, false, 0).bio().percpuCache(), "no IOCB_ALLOC_CACHE: not cached");
    assertFalse(
        on.allocBioset(0, true, 5).bio().percpuCache(), "more than BIO_INLINE_VECS: not cached");
  }

  @Test
  void clearedPolledBioShouldGoBackThroughTheMempool() {
    BioSet set = new BioSet("test", KERNEL, 1);
    Bio b = alloc(set, 0);
    b.clearPolled();
    assertEquals(BioSet.PutPath.FREED, set.put(0, b).path());
  }

  @Test
  void booksShouldCatchABioNeverPut() {
    BioSet set = new BioSet("test", KERNEL, 1);
    Bio b = alloc(set, 0);
    set.put(0, alloc(set, 0));
    Books books = new Books();
    set.audit(books);
    assertFalse(books.balanced());
    assertTrue(books.violations().get(0).contains("never put"), books.violations().toString());
    set.put(0, b);
    Books again = new Books();
    set.audit(again);
    assertTrue(again.balanced(), again.violations().toString());
  }

  @Test
  void shouldRefuseADoublePut() {
    BioSet set = new BioSet("test", KERNEL, 1);
    Bio b = alloc(set, 0);
    set.put(0, b);
    assertThrows(InvariantBroken.class, () -> set.put(0, b).path());
  }

  @Test
  void mempoolShouldKeepItsReserveFull() {
    BioSet set = new BioSet("test", new BioSetSettings(false, 512, 64, 4, 2, 32), 1);
    Bio b = set.allocBioset(0, false, 1).bio();
    assertNotNull(b);
    set.put(0, b);
    Books books = new Books();
    set.audit(books);
    assertTrue(books.balanced(), books.violations().toString());
  }

  @Test
  void theIrqListOf62ShouldTakeInterruptPutsAndBeSplicedAtTheThreshold() {
    BioSet set = new BioSet("irq", KERNEL, 1, true);
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      bios.add(alloc(set, 0));
    }
    for (int i = 0; i < 15; i++) {
      assertEquals(BioSet.PutPath.CACHED_IRQ, set.put(0, bios.get(i), true).path());
    }
    assertNull(
        set.allocPercpuCache(0, true, 0).bio(), "15 on the IRQ list: below ALLOC_CACHE_THRESHOLD");
    assertEquals(BioSet.PutPath.CACHED_IRQ, set.put(0, bios.get(15), true).path());
    BioSet.CacheAlloc spliced = set.allocPercpuCache(0, true, 0);
    assertNotNull(spliced.bio(), "16: spliced over");
    assertTrue(spliced.spliced(), "the call says it spliced");
    assertEquals(1, set.splices());
    Bio polled = bios.get(16);
    polled.setPolled();
    assertEquals(
        BioSet.PutPath.CACHED,
        set.put(0, polled, false).path(),
        "a polled bio put in task context");
    Bio notPolled = bios.get(17);
    assertEquals(
        BioSet.PutPath.CACHED_IRQ, set.put(0, notPolled, false).path(), "not polled: the IRQ list");
  }

  @Test
  void theCacheOf62ShouldHoldAtMost256() {
    BioSet set = new BioSet("irq", KERNEL, 1, true);
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 258; i++) {
      bios.add(alloc(set, 0));
    }
    for (int i = 0; i < 257; i++) {
      assertEquals(BioSet.PutPath.CACHED_IRQ, set.put(0, bios.get(i), true).path(), "bio " + i);
    }
    assertEquals(
        BioSet.PutPath.FREED,
        set.put(0, bios.get(257), true).path(),
        "past ALLOC_CACHE_MAX: freed");
    Books books = new Books();
    set.audit(books);
    assertTrue(books.balanced(), books.violations().toString());
  }
}

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

/**
 * The per-CPU bio cache policy of block/bio.c in 5.16-5.18, and the 6.2 IRQ list (docs/kernel.md
 * 5.1).
 */
class BioSetTest {
  private static final BioSetSettings KERNEL = new BioSetSettings(true, 512, 64, 4, 2, 32);

  private static Bio alloc(BioSet set, int cpu) {
    Bio b = set.bioAllocPercpuCache(cpu, true, 0).bio();
    return b != null ? b : set.bioAllocBioset(cpu, true, 0).bio();
  }

  @Test
  void shouldReuseTheLastBioPutOnTheSameCpu() {
    BioSet set = new BioSet("test", KERNEL, 2);
    assertNull(set.bioAllocPercpuCache(0, true, 0).bio(), "an empty cache misses");
    Bio a = set.bioAllocBioset(0, true, 0).bio();
    assertTrue(
        a.percpuCache(), "a fresh bio asked for with IOCB_ALLOC_CACHE joins the cache on put");
    Bio b = alloc(set, 0);
    assertEquals(BioSet.PutPath.CACHED, set.bioPut(0, a).path());
    assertEquals(BioSet.PutPath.CACHED, set.bioPut(0, b).path());
    assertSame(b, set.bioAllocPercpuCache(0, true, 0).bio(), "LIFO");
    assertSame(a, set.bioAllocPercpuCache(0, true, 0).bio());
    assertEquals(2, set.cacheHits());
  }

  @Test
  void aBioAllocatedOnOneCpuAndPutOnAnotherShouldGoToThePuttingCpusCache() {
    BioSet set = new BioSet("test", KERNEL, 2);
    Bio a = alloc(set, 0);
    set.bioPut(1, a);
    assertNull(set.bioAllocPercpuCache(0, true, 0).bio());
    assertSame(a, set.bioAllocPercpuCache(1, true, 0).bio());
  }

  @Test
  void shouldPruneSlackBiosWhenPastMaxPlusSlack() {
    BioSet set = new BioSet("test", KERNEL, 1);
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 577; i++) {
      bios.add(alloc(set, 0));
    }
    for (int i = 0; i < 576; i++) {
      set.bioPut(0, bios.get(i));
    }
    assertEquals(0, set.pruned(), "576 = ALLOC_CACHE_MAX + ALLOC_CACHE_SLACK is still kept");
    BioSet.Put put = set.bioPut(0, bios.get(576));
    assertEquals(64, set.pruned(), "the 577th frees ALLOC_CACHE_SLACK bios");
    assertEquals(64, put.pruned(), "that put pays a bio_free for each");
    // from the head of free_list: the 577th itself and the 63 put just before it; the oldest stay
    Bio next = set.bioAllocPercpuCache(0, true, 0).bio();
    assertSame(bios.get(512), next);
    set.bioPut(0, next);
    Books books = new Books();
    set.audit(books);
    assertTrue(books.balanced(), books.violations().toString());
  }

  @Test
  void shouldUseTheMempoolWithoutCacheOrWithoutAllocCacheOrForManyVecs() {
    BioSet off = new BioSet("off", new BioSetSettings(false, 512, 64, 4, 2, 32), 1);
    assertNull(off.bioAllocPercpuCache(0, true, 0).bio());
    Bio b = off.bioAllocBioset(0, true, 0).bio();
    assertFalse(b.percpuCache());
    assertEquals(BioSet.PutPath.FREED, off.bioPut(0, b).path());

    BioSet on = new BioSet("on", KERNEL, 1);
    assertFalse(
        on.bioAllocBioset(0, false, 0).bio().percpuCache(), "no IOCB_ALLOC_CACHE: not cached");
    assertFalse(
        on.bioAllocBioset(0, true, 5).bio().percpuCache(), "more than BIO_INLINE_VECS: not cached");
  }

  @Test
  void clearedPolledBioShouldGoBackThroughTheMempool() {
    BioSet set = new BioSet("test", KERNEL, 1);
    Bio b = alloc(set, 0);
    b.clearPolled();
    assertEquals(BioSet.PutPath.FREED, set.bioPut(0, b).path());
  }

  @Test
  void booksShouldCatchABioNeverPut() {
    BioSet set = new BioSet("test", KERNEL, 1);
    Bio b = alloc(set, 0);
    set.bioPut(0, alloc(set, 0));
    Books books = new Books();
    set.audit(books);
    assertFalse(books.balanced());
    assertTrue(books.violations().get(0).contains("never put"), books.violations().toString());
    set.bioPut(0, b);
    Books again = new Books();
    set.audit(again);
    assertTrue(again.balanced(), again.violations().toString());
  }

  @Test
  void shouldRefuseADoublePut() {
    BioSet set = new BioSet("test", KERNEL, 1);
    Bio b = alloc(set, 0);
    set.bioPut(0, b);
    assertThrows(InvariantBroken.class, () -> set.bioPut(0, b).path());
  }

  @Test
  void mempoolShouldKeepItsReserveFull() {
    BioSet set = new BioSet("test", new BioSetSettings(false, 512, 64, 4, 2, 32), 1);
    Bio b = set.bioAllocBioset(0, false, 1).bio();
    assertNotNull(b);
    set.bioPut(0, b);
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
      assertEquals(BioSet.PutPath.CACHED_IRQ, set.bioPut(0, bios.get(i), true).path());
    }
    assertNull(
        set.bioAllocPercpuCache(0, true, 0).bio(),
        "15 on the IRQ list: below ALLOC_CACHE_THRESHOLD");
    assertEquals(BioSet.PutPath.CACHED_IRQ, set.bioPut(0, bios.get(15), true).path());
    BioSet.CacheAlloc spliced = set.bioAllocPercpuCache(0, true, 0);
    assertNotNull(spliced.bio(), "16: spliced over");
    assertTrue(spliced.spliced(), "the call says it spliced");
    assertEquals(1, set.splices());
    Bio polled = bios.get(16);
    polled.setPolled();
    assertEquals(
        BioSet.PutPath.CACHED,
        set.bioPut(0, polled, false).path(),
        "a polled bio put in task context");
    Bio notPolled = bios.get(17);
    assertEquals(
        BioSet.PutPath.CACHED_IRQ,
        set.bioPut(0, notPolled, false).path(),
        "not polled: the IRQ list");
  }

  @Test
  void theCacheOf62ShouldHoldAtMost256() {
    BioSet set = new BioSet("irq", KERNEL, 1, true);
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 258; i++) {
      bios.add(alloc(set, 0));
    }
    for (int i = 0; i < 257; i++) {
      assertEquals(BioSet.PutPath.CACHED_IRQ, set.bioPut(0, bios.get(i), true).path(), "bio " + i);
    }
    assertEquals(
        BioSet.PutPath.FREED,
        set.bioPut(0, bios.get(257), true).path(),
        "past ALLOC_CACHE_MAX: freed");
    Books books = new Books();
    set.audit(books);
    assertTrue(books.balanced(), books.violations().toString());
  }

  @Test
  void aPutShouldGoOnTheHeadOfThePuttingCpusOwnList() {
    BioSet set = new BioSet("test", KERNEL, 2);
    Bio a = alloc(set, 0);
    Bio b = alloc(set, 1);
    set.bioPut(0, a);
    set.bioPut(0, b);
    assertEquals(2, set.percpuCache(0).nr(), "both on cpu0's free_list");
    assertEquals(0, set.percpuCache(1).nr(), "none on cpu1's, where b was allocated");
    assertSame(b, set.bioAllocPercpuCache(0, true, 0).bio(), "the head: the last put");
  }

  @Test
  void anAllocOnAnEmptyCacheShouldFallBackToBioAllocBiosetAndTheBioJoinsTheCache() {
    BioSet set = new BioSet("test", KERNEL, 1);
    BioSet.CacheAlloc miss = set.bioAllocPercpuCache(0, true, 0);
    assertNull(miss.bio(), "an empty free_list: the caller allocates normally");
    assertFalse(miss.spliced(), "no IRQ list before 6.2");
    assertEquals(1, set.cacheMisses());
    long slabBefore = set.mempool().slabAllocs();
    Bio fresh = set.bioAllocBioset(0, true, 0).bio();
    assertEquals(1, set.mempoolAllocs());
    assertEquals(slabBefore + 1, set.mempool().slabAllocs(), "mempool_alloc asks the slab");
    assertTrue(fresh.percpuCache(), "BIO_PERCPU_CACHE on a fresh bio when the cache was empty");
    assertEquals(BioSet.PutPath.CACHED, set.bioPut(0, fresh).path());
    assertEquals(1, set.percpuCache(0).nr());
  }

  @Test
  void theCacheShouldNeverHoldMoreThanMaxPlusSlackAndEachPruneFreesSlack() {
    int max = 8;
    int slack = 3;
    BioSet set = new BioSet("test", new BioSetSettings(true, max, slack, 4, 2, 32), 1);
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      bios.add(alloc(set, 0));
    }
    long prunes = 0;
    for (Bio b : bios) {
      int before = set.percpuCache(0).nr();
      BioSet.Put put = set.bioPut(0, b);
      assertTrue(set.percpuCache(0).nr() <= max + slack, "nr " + set.percpuCache(0).nr());
      if (before == max + slack) {
        assertEquals(slack, put.pruned(), "nr past ALLOC_CACHE_MAX + ALLOC_CACHE_SLACK");
        assertEquals(before + 1 - slack, set.percpuCache(0).nr());
        prunes++;
      } else {
        assertEquals(0, put.pruned(), "at most ALLOC_CACHE_MAX + ALLOC_CACHE_SLACK: kept");
      }
    }
    assertTrue(prunes > 1, "the puts went past the limit more than once");
    assertEquals(prunes * slack, set.pruned());
  }

  @Test
  void bioAllocCachePruneShouldFreeThroughTheMempoolToTheSlab() {
    BioSet set = new BioSet("test", new BioSetSettings(true, 4, 2, 4, 2, 32), 1);
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      bios.add(alloc(set, 0));
    }
    bios.forEach(b -> set.bioPut(0, b));
    assertEquals(2, set.pruned(), "the 7th put took nr past 4 + 2");
    assertEquals(2, set.mempool().slabFrees(), "the reserve is full: bio_free gives to the slab");
    assertEquals(2, set.mempool().reserve(), "BIO_POOL_SIZE stays in reserve");
  }

  @Test
  void theMempoolReserveShouldStayFullBecauseTheSlabNeverFails() {
    BioSet set = new BioSet("test", new BioSetSettings(false, 512, 64, 4, 2, 32), 1);
    assertEquals(2, set.mempool().reserve(), "min_nr elements allocated up front");
    assertEquals(2, set.mempool().slabAllocs());
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      bios.add(set.bioAllocBioset(0, false, 1).bio());
    }
    assertEquals(2, set.mempool().reserve(), "mempool_alloc took every bio from the slab");
    assertEquals(7, set.mempool().slabAllocs());
    bios.forEach(b -> set.bioPut(0, b));
    assertEquals(2, set.mempool().reserve());
    assertEquals(5, set.mempool().slabFrees(), "a full reserve: mempool_free gives to the slab");
  }

  @Test
  void theSlabShouldTakeItsSlowPathOnceEverySlabObjectsAllocsOfACpu() {
    BioSet set = new BioSet("test", new BioSetSettings(false, 512, 64, 4, 2, 3), 2);
    List<Boolean> slow = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      slow.add(set.bioAllocBioset(0, false, 0).slowPath());
    }
    assertEquals(List.of(false, false, true, false, false, true), slow, "cpu0's slab, 3 a slab");
    assertFalse(set.bioAllocBioset(1, false, 0).slowPath(), "cpu1 has a slab of its own");
  }

  @Test
  void theIrqListOf62ShouldNotBeSplicedWhileTheFreeListHasBios() {
    BioSet set = new BioSet("irq", KERNEL, 1, true);
    List<Bio> bios = new ArrayList<>();
    for (int i = 0; i < 17; i++) {
      bios.add(alloc(set, 0));
    }
    Bio polled = bios.get(16);
    polled.setPolled();
    for (int i = 0; i < 16; i++) {
      set.bioPut(0, bios.get(i), true);
    }
    set.bioPut(0, polled, false);
    BioSet.CacheAlloc a = set.bioAllocPercpuCache(0, true, 0);
    assertSame(polled, a.bio(), "free_list first");
    assertFalse(a.spliced());
    assertEquals(16, set.percpuCache(0).nrIrq(), "the IRQ list waits for an empty free_list");
  }
}

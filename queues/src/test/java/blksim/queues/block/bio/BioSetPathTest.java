package blksim.queues.block.bio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BioSetSettings;
import blksim.queues.books.Books;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostId;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.cost.ReferenceCosts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What each call of block/bio.c into a bio set charges the calling CPU (docs/kernel.md 5.1): the
 * count of calls of each kernel function, by the way the call went.
 */
class BioSetPathTest {
  private static final BioSetSettings KERNEL = new BioSetSettings(true, 512, 64, 4, 2, 32);
  private static final PathCosts COSTS = ReferenceCosts.of();

  private static BioSetPath path(BioSet set) {
    return new BioSetPath(set, new Charger(COSTS, set.name()), false);
  }

  private static BioSetPath.Allocation alloc(BioSetPath p, int cpu, int count) {
    return p.bioAllocKiocb(0, cpu, CpuTime.SUBMIT, count, true, 1, KernelFn.BIO_ALLOC_KIOCB);
  }

  /** Calls of each id charged to {@code cpu}, by the id's enum name (bio_put has two). */
  private static long calls(CostLedger ledger, int cpu, CostId id) {
    Map<String, CostLedger.Entry> steps = ledger.steps(cpu, CostId::streamName);
    CostLedger.Entry e = steps.get(id.streamName());
    return e == null ? 0 : e.calls();
  }

  @Test
  void aMissShouldChargeBioAllocBiosetAndKmemCacheAllocThenBioInitPerBio() {
    BioSetPath p = path(new BioSet("test", KERNEL, 1));
    alloc(p, 0, 3);
    CostLedger l = p.ledger();
    assertEquals(3, calls(l, 0, KernelFn.BIO_ALLOC_BIOSET));
    assertEquals(3, calls(l, 0, KernelFn.KMEM_CACHE_ALLOC));
    assertEquals(3, calls(l, 0, KernelFn.BIO_INIT));
    assertEquals(0, calls(l, 0, KernelFn.BIO_ALLOC_KIOCB), "no bio came from the cache");
  }

  @Test
  void aCacheHitShouldChargeOnlyTheCacheFnAndBioInit() {
    BioSet set = new BioSet("test", KERNEL, 1);
    BioSetPath p = path(set);
    p.bioPut(0, 0, CpuTime.POLL, alloc(p, 0, 2).bios());
    BioSetPath hits = path(set);
    alloc(hits, 0, 2);
    assertEquals(2, calls(hits.ledger(), 0, KernelFn.BIO_ALLOC_KIOCB));
    assertEquals(2, calls(hits.ledger(), 0, KernelFn.BIO_INIT));
    assertEquals(0, calls(hits.ledger(), 0, KernelFn.BIO_ALLOC_BIOSET));
    assertEquals(0, calls(hits.ledger(), 0, KernelFn.KMEM_CACHE_ALLOC));
  }

  @Test
  void aCloneFromTheCacheShouldBeChargedAsBioAllocClone() {
    BioSet set = new BioSet("dm-0 io_bs", KERNEL, 1);
    BioSetPath p = path(set);
    p.bioPut(0, 0, CpuTime.POLL, alloc(p, 0, 1).bios());
    p.bioAllocKiocb(0, 0, CpuTime.SUBMIT, 1, true, 1, KernelFn.BIO_ALLOC_CLONE);
    assertEquals(1, calls(p.ledger(), 0, KernelFn.BIO_ALLOC_CLONE));
    assertEquals(0, calls(p.ledger(), 0, KernelFn.BIO_ALLOC_KIOCB));
  }

  @Test
  void aPutToTheCpusListShouldChargeBioPutAndAnUncachedOneBioFree() {
    BioSet set = new BioSet("test", KERNEL, 1);
    BioSetPath p = path(set);
    List<Bio> bios = alloc(p, 0, 3).bios();
    bios.get(2).clearPolled();
    p.bioPut(0, 0, CpuTime.POLL, bios);
    assertEquals(2, calls(p.ledger(), 0, KernelFn.BIO_PUT));
    assertEquals(1, calls(p.ledger(), 0, KernelFn.BIO_FREE), "bio_clear_polled: to the mempool");
    assertEquals(0, calls(p.ledger(), 0, KernelFn.BIO_PUT_IRQ_LIST));
  }

  @Test
  void aPutPastMaxPlusSlackShouldChargeABioFreeForEachBioPruned() {
    BioSet set = new BioSet("test", KERNEL, 1);
    BioSetPath p = path(set);
    List<Bio> bios = alloc(p, 0, 577).bios();
    p.bioPut(0, 0, CpuTime.POLL, bios.subList(0, 576));
    assertEquals(0, calls(p.ledger(), 0, KernelFn.BIO_FREE), "576 kept");
    p.bioPut(0, 0, CpuTime.POLL, bios.subList(576, 577));
    assertEquals(577, calls(p.ledger(), 0, KernelFn.BIO_PUT), "the 577th is pushed first");
    assertEquals(64, calls(p.ledger(), 0, KernelFn.BIO_FREE), "then ALLOC_CACHE_SLACK freed");
  }

  @Test
  void theIrqListOf62ShouldChargeItsPutAndTheSpliceBeforeTheCacheHit() {
    BioSet set = new BioSet("irq", KERNEL, 1, true);
    BioSetPath p = path(set);
    List<Bio> bios = alloc(p, 0, 16).bios();
    p.bioPut(0, 0, CpuTime.IRQ, bios);
    assertEquals(16, calls(p.ledger(), 0, KernelFn.BIO_PUT_IRQ_LIST));
    assertEquals(0, calls(p.ledger(), 0, KernelFn.BIO_PUT));
    alloc(p, 0, 2);
    assertEquals(1, calls(p.ledger(), 0, KernelFn.BIO_ALLOC_IRQ_CACHE_SPLICE), "once, then pops");
    assertEquals(2, calls(p.ledger(), 0, KernelFn.BIO_ALLOC_KIOCB));
  }

  @Test
  void eachCallShouldEndWhenTheTimeItChargedTheCallingCpuIsSpent() {
    BioSet set = new BioSet("test", KERNEL, 2);
    BioSetPath p = path(set);
    long start = 1_000_000;
    BioSetPath.Allocation a =
        p.bioAllocKiocb(start, 1, CpuTime.SUBMIT, 4, true, 1, KernelFn.BIO_ALLOC_KIOCB);
    assertEquals(4, a.bios().size());
    assertEquals(start + p.ledger().totalPs(1), a.atPs());
    long charged = p.ledger().totalPs(1);
    long end = p.bioPut(a.atPs(), 1, CpuTime.POLL, a.bios());
    assertEquals(a.atPs() + p.ledger().totalPs(1) - charged, end);
    assertEquals(0, p.ledger().totalPs(0), "nothing on a CPU that did not call");
  }

  @Test
  void aSlabSlowPathShouldSpinOnTheListLockAnotherCpuHoldsAndPullItsLine() {
    // a slab of 2 bios: every second allocation on a CPU takes SLUB's slow path
    BioSet set = new BioSet("test", new BioSetSettings(false, 512, 64, 4, 2, 2), 2);
    BioSetPath p = path(set);
    p.bioAllocKiocb(0, 0, CpuTime.SUBMIT, 2, false, 1, KernelFn.BIO_ALLOC_KIOCB);
    assertEquals(0, p.ledger().time(0, CpuTime.LOCK_WAIT), "the first to take it does not spin");
    p.bioAllocKiocb(0, 1, CpuTime.SUBMIT, 2, false, 1, KernelFn.BIO_ALLOC_KIOCB);
    assertEquals(
        COSTS.slabListHoldPs(),
        p.ledger().time(1, CpuTime.LOCK_WAIT),
        "cpu1 came to the lock when cpu0 took it: it spins for all of cpu0's hold");
    assertEquals(
        1, calls(p.ledger(), 1, blksim.queues.cost.Contention.LINE_SLAB_LIST_LOCK), "line over");
    assertEquals(0, calls(p.ledger(), 0, blksim.queues.cost.Contention.LINE_SLAB_LIST_LOCK));
  }

  @Test
  void theFirstPutShouldBeForgottenWhenTheBooksAreBrokenOnPurpose() {
    BioSet set = new BioSet("test", KERNEL, 1);
    BioSetPath p = new BioSetPath(set, new Charger(COSTS, "test"), true);
    List<Bio> bios = new ArrayList<>(alloc(p, 0, 2).bios());
    p.bioPut(0, 0, CpuTime.POLL, bios);
    assertEquals(1, calls(p.ledger(), 0, KernelFn.BIO_PUT), "only the second is put");
    assertFalse(bios.get(0).inUse());
    Books books = new Books();
    set.audit(books);
    assertFalse(books.balanced());
    assertTrue(books.violations().get(0).contains("never put"), books.violations().toString());
  }
}

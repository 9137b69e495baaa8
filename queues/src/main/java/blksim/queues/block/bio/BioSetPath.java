package blksim.queues.block.bio;

import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.time.SpinLock;
import java.util.ArrayList;
import java.util.List;

/**
 * The calls of block/bio.c into a {@link BioSet} as the calling CPU runs them, each charged to that
 * CPU: {@code bio_alloc_kiocb} (or {@code bio_alloc_clone}) with its fallback to {@code
 * bio_alloc_bioset}, and the final {@code bio_put} with the {@code bio_free}s of {@code
 * bio_alloc_cache_prune} (docs/kernel.md 5.1). When SLUB takes its slow path under these, the
 * node's {@code list_lock} (mm/slub.c, {@code kmem_cache_node}) is taken: what other CPUs make it
 * cost is charged too.
 */
public final class BioSetPath {
  /**
   * A bio the per-CPU cache could not give: {@code bio_alloc_bioset}, which takes it from the
   * mempool's slab ({@code mempool_alloc} → {@code kmem_cache_alloc}), per bio.
   */
  static final KernelFn[] MEMPOOL_PATH = {KernelFn.BIO_ALLOC_BIOSET, KernelFn.KMEM_CACHE_ALLOC};

  private final BioSet bioSet;
  private final Charger charger;
  private final SpinLock listLock = new SpinLock("slab list_lock");
  private final CostStep listLockLine;
  private boolean leakOne;

  /**
   * @param charger charges the calling CPUs, in the bio set's own ledger
   * @param leakOne whether the first bio put is forgotten instead, as a leak would; only for
   *     testing the books
   */
  public BioSetPath(BioSet bioSet, Charger charger, boolean leakOne) {
    this.bioSet = bioSet;
    this.charger = charger;
    this.listLockLine =
        new CostStep(Contention.LINE_SLAB_LIST_LOCK, charger.costs().lineTransferPs());
    this.leakOne = leakOne;
  }

  /**
   * What {@link #bioAllocKiocb} gave.
   *
   * @param atPs when the calling CPU is done with the allocations
   * @param bios the bios, in the order allocated
   */
  public record Allocation(long atPs, List<Bio> bios) {}

  /**
   * {@code bio_alloc_kiocb} of {@code count} bios on {@code cpu}, from {@code atPs}: each from the
   * CPU's cache ({@link BioSet#bioAllocPercpuCache}, charged as {@code cacheFn}; a splice of the
   * IRQ list before it, {@code bio_alloc_irq_cache_splice}), else from {@code bio_alloc_bioset}
   * ({@link BioSet#bioAllocBioset}, {@link #MEMPOOL_PATH}); then {@code bio_init}.
   *
   * @param allocCache whether the caller may take them from the per-CPU cache: the kiocb's
   *     IOCB_ALLOC_CACHE, or a polled original's clone
   * @param nrVecs vecs per bio
   * @param cacheFn the function that pops the cache: {@code bio_alloc_kiocb}, or {@code
   *     bio_alloc_clone} for a device-mapper clone
   */
  public Allocation bioAllocKiocb(
      long atPs,
      int cpu,
      CpuTime what,
      int count,
      boolean allocCache,
      int nrVecs,
      KernelFn cacheFn) {
    List<Bio> bios = new ArrayList<>(count);
    long t = atPs;
    for (int i = 0; i < count; i++) {
      BioSet.CacheAlloc cached = bioSet.bioAllocPercpuCache(cpu, allocCache, nrVecs);
      if (cached.spliced()) {
        t += charge(cpu, what, KernelFn.BIO_ALLOC_IRQ_CACHE_SPLICE);
      }
      Bio bio = cached.bio();
      if (bio != null) {
        t += charge(cpu, what, cacheFn);
      } else {
        BioSet.SlabAlloc slab = bioSet.bioAllocBioset(cpu, allocCache, nrVecs);
        bio = slab.bio();
        t += slabSlowPath(slab.slowPath(), cpu, what, t);
        t += charger.charge(cpu, what, MEMPOOL_PATH, 1);
      }
      t += charge(cpu, what, KernelFn.BIO_INIT);
      bios.add(bio);
    }
    return new Allocation(t, bios);
  }

  /**
   * The final {@code bio_put} of each of {@code bios} on {@code cpu}, from {@code atPs} ({@link
   * BioSet#bioPut}): charged as the way it went ({@link #bioPutFn}), and a {@code bio_free} for
   * each bio {@code bio_alloc_cache_prune} freed.
   *
   * @return when the calling CPU is done with the puts
   */
  public long bioPut(long atPs, int cpu, CpuTime what, List<Bio> bios) {
    long t = atPs;
    for (Bio bio : bios) {
      if (leakOne) {
        leakOne = false;
        bioSet.leak(bio);
        continue;
      }
      BioSet.Put put = bioSet.bioPut(cpu, bio, what.inInterrupt());
      t += slabSlowPath(put.slowPath(), cpu, what, t);
      t += charge(cpu, what, bioPutFn(put.path()));
      if (put.pruned() > 0) {
        // bio_alloc_cache_prune: a bio_free for each bio it frees
        t += charger.charge(cpu, what, KernelFn.BIO_FREE, put.pruned());
      }
    }
    return t;
  }

  /**
   * What a final put costs by where the bio went: a push on the CPU's list ({@code bio_put}), on
   * its IRQ list under {@code local_irq_save} (6.2+), or {@code bio_free} to the mempool and slab.
   */
  static KernelFn bioPutFn(BioSet.PutPath path) {
    return switch (path) {
      case CACHED -> KernelFn.BIO_PUT;
      case CACHED_IRQ -> KernelFn.BIO_PUT_IRQ_LIST;
      case FREED -> KernelFn.BIO_FREE;
    };
  }

  /**
   * If an alloc or free took SLUB's slow path, what other CPUs make the node's list_lock cost:
   * waiting for it and pulling its line over. The uncontended slow path is already in the profiled
   * averages of kmem_cache_alloc and bio_free, so it is not charged again.
   */
  private long slabSlowPath(boolean slowPath, int cpu, CpuTime what, long atPs) {
    if (!slowPath) {
      return 0;
    }
    PathCosts costs = charger.costs();
    SpinLock.Acquired a =
        listLock.acquire(cpu, atPs, costs.slabListHoldPs(), costs.lineTransferPs());
    return charger.lock(cpu, what, a, Contention.LOCK_WAIT_SLAB_LIST_LOCK, listLockLine);
  }

  private long charge(int cpu, CpuTime what, KernelFn fn) {
    return charger.charge(cpu, what, fn, 1);
  }

  public BioSet bioSet() {
    return bioSet;
  }

  /** What the calls charged, by CPU. */
  public CostLedger ledger() {
    return charger.ledger();
  }
}

package blksim.queues.block.bio;

import blksim.config.BioSetSettings;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;

/**
 * Models {@code struct bio_set} with {@code BIOSET_PERCPU_CACHE} (block/bio.c, kernels 5.16-5.18):
 * a per-CPU {@link BioAllocCache} in front of a {@link Mempool}.
 *
 * <p>Policy, as in those kernels: a bio comes from the current CPU's cache when the caller asks for
 * it ({@code IOCB_ALLOC_CACHE}, set by io_uring on IOPOLL rings) and it needs at most {@code
 * BIO_INLINE_VECS} vecs; it is then flagged {@code BIO_PERCPU_CACHE}, as is a bio allocated fresh
 * because the cache was empty. On the final {@code bio_put} a flagged bio is pushed on the putting
 * CPU's list whatever the context; when that takes the count past {@code ALLOC_CACHE_MAX +
 * ALLOC_CACHE_SLACK}, {@code ALLOC_CACHE_SLACK} bios are freed ({@code bio_alloc_cache_prune}). An
 * unflagged bio goes back through the mempool.
 */
public final class BioSet {
  /** How {@link #bioPut} disposed of a bio, which decides what it costs. */
  public enum PutPath {
    /** Pushed on a per-CPU list. */
    CACHED,
    /** Pushed on a per-CPU IRQ list (6.2+), interrupts saved around it. */
    CACHED_IRQ,
    /** Freed to the mempool and slab. */
    FREED
  }

  /** {@code ALLOC_CACHE_THRESHOLD} (6.2+): IRQ-list bios taken over once there are this many. */
  public static final int ALLOC_CACHE_THRESHOLD = 16;

  /** {@code ALLOC_CACHE_MAX} of 6.2+. */
  public static final int ALLOC_CACHE_MAX_6_2 = 256;

  private final String name;
  private final BioSetSettings settings;
  private final BioAllocCache[] caches;
  private final Mempool mempool;
  private final boolean irqList;
  private long splices;
  private long outstanding;
  private long cacheHits;
  private long cacheMisses;
  private long mempoolAllocs;
  private long pruned;

  /** Bios the put being made pruned ({@code bio_free} each). */
  private int prunedNow;

  private long freedUncached;

  /** Whether the put under way freed to the slab through SLUB's slow path. */
  private boolean slabSlowPath;

  /**
   * @param nrCpus CPUs, one cache each when {@code settings.percpuCache()}
   */
  public BioSet(String name, BioSetSettings settings, int nrCpus) {
    this(name, settings, nrCpus, false);
  }

  /**
   * @param irqList the 6.2 rules (patch bio-cache-irq-list): a second list for bios put from
   *     interrupt context or not polled, taken over at {@link #ALLOC_CACHE_THRESHOLD}, and at most
   *     {@link #ALLOC_CACHE_MAX_6_2} bios cached in all, with no slack
   */
  public BioSet(String name, BioSetSettings settings, int nrCpus, boolean irqList) {
    this.irqList = irqList;
    this.name = name;
    this.settings = settings;
    this.caches = new BioAllocCache[settings.percpuCache() ? nrCpus : 0];
    for (int i = 0; i < caches.length; i++) {
      caches[i] = new BioAllocCache();
    }
    this.mempool =
        new Mempool(settings.poolSize(), this, 0, Math.max(1, nrCpus), settings.slabObjects());
  }

  /**
   * What {@link #bioAllocPercpuCache} did.
   *
   * @param bio the bio, or null when the caller must fall back to {@link #bioAllocBioset}
   * @param spliced whether it first spliced the IRQ list over ({@code bio_alloc_irq_cache_splice})
   */
  public record CacheAlloc(Bio bio, boolean spliced) {}

  /**
   * What {@link #bioAllocBioset} did.
   *
   * @param slowPath whether SLUB took its slow path (the node's {@code list_lock})
   */
  public record SlabAlloc(Bio bio, boolean slowPath) {}

  /**
   * What {@link #bioPut} did.
   *
   * @param slowPath whether a free to the slab took SLUB's slow path (the node's {@code list_lock})
   */
  public record Put(PutPath path, boolean slowPath, int pruned) {}

  /**
   * The per-CPU cache half of {@code bio_alloc_kiocb} (block/bio.c, 5.16-5.18; {@code
   * bio_alloc_percpu_cache} from 5.19): a bio from {@code cpu}'s list if the caller may use the
   * cache and the list is not empty (docs/kernel.md 5.1). With the 6.2 rules an empty {@code
   * free_list} first takes the IRQ list over once it holds {@link #ALLOC_CACHE_THRESHOLD}.
   *
   * @param allocCache the caller's {@code IOCB_ALLOC_CACHE}
   */
  public CacheAlloc bioAllocPercpuCache(int cpu, boolean allocCache, int nrVecs) {
    if (!usesCache(allocCache, nrVecs)) {
      return new CacheAlloc(null, false);
    }
    BioAllocCache cache = caches[cpu];
    boolean spliced = false;
    if (irqList && cache.nr() == 0 && cache.nrIrq() >= ALLOC_CACHE_THRESHOLD) {
      cache.spliceIrq();
      splices++;
      spliced = true;
    }
    Bio bio = cache.pop();
    if (bio == null) {
      cacheMisses++;
      return new CacheAlloc(null, spliced);
    }
    cacheHits++;
    return new CacheAlloc(handOut(bio, true), spliced);
  }

  /**
   * {@code bio_alloc_bioset}: a bio from the mempool ({@code mempool_alloc}, which asks the slab
   * first); flagged {@code BIO_PERCPU_CACHE} when the caller asked for the cache (the cache was
   * empty), so that it joins the cache on its final put.
   */
  public SlabAlloc bioAllocBioset(int cpu, boolean allocCache, int nrVecs) {
    mempoolAllocs++;
    Bio bio = mempool.alloc(cpu);
    return new SlabAlloc(handOut(bio, usesCache(allocCache, nrVecs)), mempool.lastSlowPath());
  }

  /** The final {@code bio_put} on {@code cpu}, from process context. */
  public Put bioPut(int cpu, Bio bio) {
    return bioPut(cpu, bio, false);
  }

  /**
   * The final {@code bio_put} on {@code cpu}: back to that CPU's cache (whichever CPU allocated it)
   * or to the mempool ({@code bio_free}).
   *
   * @param inInterrupt whether it is put from interrupt context
   */
  public Put bioPut(int cpu, Bio bio, boolean inInterrupt) {
    slabSlowPath = false;
    prunedNow = 0;
    PutPath path = putPath(cpu, bio, inInterrupt);
    return new Put(path, slabSlowPath, prunedNow);
  }

  private PutPath putPath(int cpu, Bio bio, boolean inInterrupt) {
    if (!bio.inUse() || bio.pool() != this) {
      throw new InvariantBroken(
          name + ": bio " + bio.id() + " put twice or into the wrong bio_set");
    }
    outstanding--;
    boolean toCache = bio.percpuCache() && caches.length > 0;
    bio.uninit();
    if (!toCache) {
      if (caches.length > 0) {
        freedUncached++;
      }
      bioFree(cpu, bio);
      return PutPath.FREED;
    }
    BioAllocCache cache = caches[cpu];
    if (irqList) {
      // bio_put_percpu_cache (6.2): full caches free; polled task-context puts go to free_list,
      // everything else to free_list_irq.
      if (cache.nr() + cache.nrIrq() > ALLOC_CACHE_MAX_6_2) {
        bioFree(cpu, bio);
        return PutPath.FREED;
      }
      if (bio.polled() && !inInterrupt) {
        cache.push(bio);
        return PutPath.CACHED;
      }
      cache.pushIrq(bio);
      return PutPath.CACHED_IRQ;
    }
    if (cache.push(bio) > settings.allocCacheMax() + settings.allocCacheSlack()) {
      prunedNow = bioAllocCachePrune(cpu, cache, settings.allocCacheSlack());
    }
    return PutPath.CACHED;
  }

  /**
   * {@code bio_alloc_cache_prune(cache, nr)} (block/bio.c, 5.16-5.18): frees up to {@code nr} bios
   * from the head of {@code free_list}, {@code bio_free} each. From {@code bio_put} that is the bio
   * just put and those put before it, newest first; the oldest stay.
   *
   * @return the bios it freed
   */
  private int bioAllocCachePrune(int cpu, BioAllocCache cache, int nr) {
    int freed = 0;
    while (freed < nr) {
      Bio bio = cache.pop();
      if (bio == null) {
        break;
      }
      bioFree(cpu, bio);
      pruned++;
      freed++;
    }
    return freed;
  }

  /** {@code bio_free}: back to the mempool, which refills its reserve or frees to the slab. */
  private void bioFree(int cpu, Bio bio) {
    mempool.free(cpu, bio);
    slabSlowPath |= mempool.lastSlowPath();
  }

  /** {@code bio_alloc_irq_cache_splice} calls. */
  public long splices() {
    return splices;
  }

  /** Forgets a bio handed out, as a leak would; only for testing the books. */
  public void leak(Bio bio) {
    bio.uninit();
  }

  private boolean usesCache(boolean allocCache, int nrVecs) {
    return caches.length > 0 && allocCache && nrVecs <= settings.bioInlineVecs();
  }

  private Bio handOut(Bio bio, boolean percpuCache) {
    bio.init(percpuCache);
    outstanding++;
    return bio;
  }

  public String name() {
    return name;
  }

  /** {@code cpu}'s {@code struct bio_alloc_cache}. */
  BioAllocCache percpuCache(int cpu) {
    return caches[cpu];
  }

  /** {@code bs->bio_pool}. */
  Mempool mempool() {
    return mempool;
  }

  public long cacheHits() {
    return cacheHits;
  }

  public long cacheMisses() {
    return cacheMisses;
  }

  /** Bios allocated through {@code bio_alloc_bioset} (the mempool and slab). */
  public long mempoolAllocs() {
    return mempoolAllocs;
  }

  /** Bios freed by {@code bio_alloc_cache_prune}. */
  public long pruned() {
    return pruned;
  }

  /**
   * Bios put to the slab although the set has per-CPU caches: they were not marked for one (a
   * polled bio that {@code bio_clear_polled} unmarked, or one allocated without IOCB_ALLOC_CACHE).
   */
  public long freedUncached() {
    return freedUncached;
  }

  /** Bios handed out and not put yet. */
  public long outstanding() {
    return outstanding;
  }

  /** Checks that every bio is back: in a cache, in the mempool reserve, or freed to the slab. */
  public void audit(Books books) {
    books.held(outstanding, name + ": bios handed out and never put");
    long cached = 0;
    for (int cpu = 0; cpu < caches.length; cpu++) {
      books.checkEqual(
          caches[cpu].nr(),
          caches[cpu].listSize(),
          name + ": cpu" + cpu + " cache nr vs its free list");
      books.checkEqual(
          caches[cpu].nrIrq(),
          caches[cpu].irqListSize(),
          name + ": cpu" + cpu + " cache nr_irq vs its IRQ list");
      cached += caches[cpu].listSize() + caches[cpu].irqListSize();
    }
    books.checkEqual(
        mempool.slabAllocs() - mempool.slabFrees(),
        cached + mempool.reserve() + outstanding,
        name + ": bios taken from the slab vs bios cached, reserved or in flight");
  }
}

package blksim.queues.block.bio;

import java.util.ArrayDeque;

/**
 * Models {@code mempool_t} over a slab cache (mm/mempool.c): {@code min_nr} elements are allocated
 * up front as a reserve; {@code mempool_alloc} asks the slab first and takes from the reserve only
 * when the slab fails (it never does in this model), and {@code mempool_free} refills the reserve
 * before giving back to the slab.
 */
public final class Mempool {
  private final int minNr;
  private final ArrayDeque<Bio> reserve = new ArrayDeque<>();
  private final BioSet owner;
  private int nextId;
  private long slabAllocs;
  private long slabFrees;
  private final int slabObjects;
  private final int[] allocsOnCpuSlab;
  private final int[] freesSinceFlush;
  private boolean lastSlowPath;

  Mempool(int minNr, BioSet owner, int firstId) {
    this(minNr, owner, firstId, 1, Integer.MAX_VALUE);
  }

  /**
   * @param nrCpus CPUs, each with its own slab
   * @param slabObjects objects a slab holds: every so many allocations on a CPU empty its slab, and
   *     every so many frees fill one, and SLUB's slow path takes the node's {@code list_lock}
   */
  Mempool(int minNr, BioSet owner, int firstId, int nrCpus, int slabObjects) {
    this.slabObjects = slabObjects;
    this.allocsOnCpuSlab = new int[nrCpus];
    this.freesSinceFlush = new int[nrCpus];
    this.minNr = minNr;
    this.owner = owner;
    this.nextId = firstId;
    for (int i = 0; i < minNr; i++) {
      reserve.add(kmemCacheAlloc());
    }
  }

  /** {@code mempool_alloc} on {@code cpu}: from the slab. */
  Bio alloc(int cpu) {
    lastSlowPath = ++allocsOnCpuSlab[cpu] >= slabObjects;
    if (lastSlowPath) {
      allocsOnCpuSlab[cpu] = 0;
    }
    return kmemCacheAlloc();
  }

  /** {@code mempool_free} on {@code cpu}: refill the reserve, or free to the slab. */
  void free(int cpu, Bio bio) {
    lastSlowPath = false;
    if (reserve.size() < minNr) {
      reserve.add(bio);
    } else {
      slabFrees++;
      lastSlowPath = ++freesSinceFlush[cpu] >= slabObjects;
      if (lastSlowPath) {
        freesSinceFlush[cpu] = 0;
      }
    }
  }

  /** Whether the last alloc or free took SLUB's slow path through the node's list_lock. */
  boolean lastSlowPath() {
    return lastSlowPath;
  }

  private Bio kmemCacheAlloc() {
    slabAllocs++;
    return new Bio(nextId++, owner);
  }

  /** Bios ever taken from the slab. */
  public long slabAllocs() {
    return slabAllocs;
  }

  /** Bios given back to the slab. */
  public long slabFrees() {
    return slabFrees;
  }

  public int reserve() {
    return reserve.size();
  }
}

package blksim.queues.bio;

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

  Mempool(int minNr, BioSet owner, int firstId) {
    this.minNr = minNr;
    this.owner = owner;
    this.nextId = firstId;
    for (int i = 0; i < minNr; i++) {
      reserve.add(kmemCacheAlloc());
    }
  }

  /** {@code mempool_alloc}: from the slab. */
  Bio alloc() {
    return kmemCacheAlloc();
  }

  /** {@code mempool_free}: refill the reserve, or free to the slab. */
  void free(Bio bio) {
    if (reserve.size() < minNr) {
      reserve.add(bio);
    } else {
      slabFrees++;
    }
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

package blksim.queues.block.bio;

import java.util.ArrayDeque;

/**
 * Models {@code struct bio_alloc_cache} (block/bio.c, 5.16-5.18): one CPU's LIFO free list of bios
 * and its count {@code nr}. The thresholds that act on it live in {@link BioSet}.
 */
public final class BioAllocCache {
  private final ArrayDeque<Bio> freeList = new ArrayDeque<>();
  private final ArrayDeque<Bio> freeListIrq = new ArrayDeque<>();
  private int nr;
  private int nrIrq;

  /** Takes the most recently freed bio, or null if the list is empty. */
  Bio pop() {
    Bio bio = freeList.pollFirst();
    if (bio != null) {
      nr--;
    }
    return bio;
  }

  /** Pushes a bio; returns the new {@code nr}. */
  int push(Bio bio) {
    freeList.addFirst(bio);
    return ++nr;
  }

  /** Pushes a bio on the IRQ list ({@code free_list_irq}, 6.2+); returns the new {@code nr_irq}. */
  int pushIrq(Bio bio) {
    freeListIrq.addFirst(bio);
    return ++nrIrq;
  }

  /** {@code bio_alloc_irq_cache_splice}: the IRQ list becomes the free list. */
  void spliceIrq() {
    while (!freeListIrq.isEmpty()) {
      freeList.addLast(freeListIrq.pollFirst());
    }
    nr += nrIrq;
    nrIrq = 0;
  }

  public int nr() {
    return nr;
  }

  public int nrIrq() {
    return nrIrq;
  }

  int listSize() {
    return freeList.size();
  }

  int irqListSize() {
    return freeListIrq.size();
  }
}

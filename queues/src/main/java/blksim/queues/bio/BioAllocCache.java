package blksim.queues.bio;

import java.util.ArrayDeque;

/**
 * Models {@code struct bio_alloc_cache} (block/bio.c, 5.16-5.18): one CPU's LIFO free list of bios
 * and its count {@code nr}. The thresholds that act on it live in {@link BioSet}.
 */
public final class BioAllocCache {
  private final ArrayDeque<Bio> freeList = new ArrayDeque<>();
  private int nr;

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

  /** Takes the least recently freed bio, for pruning, or null. */
  Bio pollOldest() {
    Bio bio = freeList.pollLast();
    if (bio != null) {
      nr--;
    }
    return bio;
  }

  public int nr() {
    return nr;
  }

  int listSize() {
    return freeList.size();
  }
}

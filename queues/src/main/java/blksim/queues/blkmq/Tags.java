package blksim.queues.blkmq;

import java.util.BitSet;

/**
 * Models {@code struct blk_mq_tags} with its {@code sbitmap_queue} (lib/sbitmap.c), without the
 * reserved tags: a bitmap of {@code nr_tags} tags and a per-CPU allocation hint.
 *
 * <p>Allocation searches from the CPU's hint, wrapping once around the map; the hint moves past a
 * tag taken at the hint ({@code update_alloc_hint_after_get}: to 0 once it reaches {@code depth -
 * 1}) and to 0 when the map is full; freeing a tag makes it the freeing CPU's hint ({@code
 * sbitmap_queue_clear}). The kernel searches word by word; a linear search from the hint gives the
 * same tag whenever the words are not contended, which is the case in a one-CPU model.
 */
public final class Tags {
  /** {@code BLK_MQ_NO_TAG}. */
  public static final int NO_TAG = -1;

  private final int nrTags;
  private final BitSet bitmap;
  private final int[] allocHint;
  private final int shift;
  private final int[] wordCpu;
  private boolean remoteTouch;
  private int inUse;

  /**
   * @param nrTags tags (null_blk's hw_queue_depth)
   * @param nrCpus CPUs, one hint each
   */
  public Tags(int nrTags, int nrCpus) {
    this(nrTags, nrCpus, null);
  }

  /**
   * @param hints draws each CPU's first allocation hint, as {@code sbitmap_init_hint} does with
   *     {@code prandom_u32() % depth}; null starts every CPU at 0
   */
  public Tags(int nrTags, int nrCpus, java.util.random.RandomGenerator hints) {
    if (nrTags <= 0) {
      throw new IllegalArgumentException("nrTags must be > 0, was " + nrTags);
    }
    this.nrTags = nrTags;
    this.bitmap = new BitSet(nrTags);
    this.allocHint = new int[nrCpus];
    if (hints != null) {
      for (int cpu = 0; cpu < nrCpus; cpu++) {
        allocHint[cpu] = hints.nextInt(nrTags);
      }
    }
    this.shift = shift(nrTags);
    this.wordCpu = new int[(nrTags + (1 << shift) - 1) >> shift];
    java.util.Arrays.fill(wordCpu, -1);
  }

  /**
   * {@code sbitmap_calculate_shift}: bits per word, so that the map spreads over at least four
   * words (each its own cache line) when it can.
   */
  static int shift(int depth) {
    int shift = 6;
    if (depth >= 4) {
      while ((4 << shift) > depth) {
        shift--;
      }
    }
    return shift;
  }

  /** Bits per sbitmap word. */
  public int bitsPerWord() {
    return 1 << shift;
  }

  /** Whether the last get or put touched a word another CPU touched last: its line moved. */
  boolean remoteTouch() {
    return remoteTouch;
  }

  private void touch(int tag, int cpu) {
    int word = tag >> shift;
    remoteTouch = wordCpu[word] >= 0 && wordCpu[word] != cpu;
    wordCpu[word] = cpu;
  }

  /** {@code blk_mq_get_tag} without waiting: a free tag, or {@link #NO_TAG}. */
  public int get(int cpu) {
    int hint = allocHint[cpu];
    int nr = bitmap.nextClearBit(hint);
    if (nr >= nrTags) {
      nr = bitmap.nextClearBit(0);
      if (nr >= hint) {
        allocHint[cpu] = 0;
        remoteTouch = false;
        return NO_TAG;
      }
    }
    bitmap.set(nr);
    inUse++;
    touch(nr, cpu);
    if (nr == hint) {
      allocHint[cpu] = nr + 1 >= nrTags - 1 ? 0 : nr + 1;
    }
    return nr;
  }

  /**
   * {@code blk_mq_put_tag}: frees {@code tag} on {@code cpu}.
   *
   * @throws IllegalStateException if the tag is not allocated
   */
  public void put(int tag, int cpu) {
    if (tag < 0 || tag >= nrTags || !bitmap.get(tag)) {
      throw new IllegalStateException(
          "tag " + tag + " freed but not allocated (nr_tags " + nrTags + ")");
    }
    bitmap.clear(tag);
    inUse--;
    touch(tag, cpu);
    allocHint[cpu] = tag;
  }

  public boolean isAllocated(int tag) {
    return bitmap.get(tag);
  }

  public int inUse() {
    return inUse;
  }

  public int nrTags() {
    return nrTags;
  }
}

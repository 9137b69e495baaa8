package blksim.queues.block.blk_mq_tag;

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
    this(nrTags, nrCpus, hints, nrTags);
  }

  /**
   * @param mapDepth the depth the sbitmap's words were laid out for: more than {@code nrTags} when
   *     the map was shrunk ({@code sbitmap_queue_resize} keeps the words' size)
   */
  public Tags(int nrTags, int nrCpus, java.util.random.RandomGenerator hints, int mapDepth) {
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
    this.shift = shift(Math.max(nrTags, mapDepth));
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
  public boolean remoteTouch() {
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
   * {@code __sbitmap_queue_get_batch} (lib/sbitmap.c, 5.16): up to {@code nrTags} tags from one
   * word, as {@code blk_mq_get_tags} asks for a plug's batch. From the word of the CPU's hint on,
   * wrapping, the first word whose first free bit {@code nr} leaves room for the whole batch
   * ({@code nr + nrTags <= word depth}) gives the free bits of {@code [nr, nr + nrTags)}. A batch
   * larger than a word never fits: with 64 tags a word holds 16, and a plug of 32 gets nothing
   * here.
   *
   * @return the tags taken, lowest first, or an empty array when no word had room
   */
  public int[] getBatch(int cpu, int nrTags) {
    int bits = 1 << shift;
    int words = wordCpu.length;
    int hint = allocHint[cpu];
    int index = hint >> shift;
    for (int i = 0; i < words; i++) {
      int base = index << shift;
      int depth = Math.min(bits, this.nrTags - base);
      int nr = bitmap.nextClearBit(base) - base;
      if (nr + nrTags <= depth) {
        int[] got = new int[nrTags];
        int n = 0;
        for (int tag = base + nr; tag < base + nr + nrTags; tag++) {
          if (!bitmap.get(tag)) {
            bitmap.set(tag);
            got[n++] = tag;
          }
        }
        inUse += n;
        touch(base + nr, cpu);
        int last = base + nr + nrTags - 1;
        if (last == hint) {
          allocHint[cpu] = last + 1 >= this.nrTags - 1 ? 0 : last + 1;
        }
        return java.util.Arrays.copyOf(got, n);
      }
      index = index + 1 >= words ? 0 : index + 1;
    }
    remoteTouch = false;
    return new int[0];
  }

  /**
   * {@code sbitmap_queue_clear_batch} (5.16), for {@code blk_mq_flush_tag_batch}: frees {@code
   * tags} on {@code cpu} with one atomic andnot per run of tags in the same word; the CPU's hint
   * becomes the last tag.
   *
   * @return the runs of consecutive tags that share a word (an atomic each), and how many of those
   *     words another CPU touched last (their lines move over)
   * @throws IllegalStateException if a tag is not allocated
   */
  public Cleared putBatch(int[] tags, int nr, int cpu) {
    int runs = 0;
    int word = -1;
    int remote = 0;
    for (int i = 0; i < nr; i++) {
      int tag = tags[i];
      if (tag < 0 || tag >= nrTags || !bitmap.get(tag)) {
        throw new IllegalStateException(
            "tag " + tag + " freed but not allocated (nr_tags " + nrTags + ")");
      }
      bitmap.clear(tag);
      inUse--;
      if (tag >> shift != word) {
        word = tag >> shift;
        runs++;
        touch(tag, cpu);
        remote += remoteTouch ? 1 : 0;
      }
    }
    if (nr > 0) {
      allocHint[cpu] = tags[nr - 1];
    }
    return new Cleared(runs, remote);
  }

  /** What {@link #putBatch} did: atomics, and word lines pulled from other CPUs. */
  public record Cleared(int runs, int remoteRuns) {}

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

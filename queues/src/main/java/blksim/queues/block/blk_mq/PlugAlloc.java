package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import java.util.ArrayDeque;
import java.util.List;

/**
 * {@code blk_mq_get_request} under one plug, for the bios of one submission that go to one hardware
 * queue (block/blk-mq.c, 5.16). With plug-cached requests the first allocation asks for the plug's
 * {@code nr_ios} tags at once ({@code blk_mq_get_new_requests}: {@code data.nr_tags = plug->nr_ios;
 * plug->nr_ios = 1}); the requests it gets wait in {@code plug->cached_rq}, and each bio after
 * takes one of them without entering the queue. What is left when the plug finishes goes back
 * unused ({@code blk_mq_free_plug_rqs}). Without them, or when the batch does not fit a word, each
 * bio gets a request of its own. Unless the queue says {@code nomerges = 2}, a bio first tries to
 * go behind the plug's last request ({@code blk_attempt_plug_merge}, which since 5.16 looks at that
 * one only); a bio that merges takes no request and, with none cached, enters the queue and leaves
 * it again.
 */
public final class PlugAlloc {
  /** How a bio got its request. */
  public enum How {
    /** Merged behind the plug's last request, with a cached request at hand: no queue enter. */
    MERGED_CACHED,
    /** Merged behind the plug's last request after entering the queue (and leaving it). */
    MERGED,
    /** From the plug's cache: no {@code bio_queue_enter}, no tag of its own. */
    CACHED,
    /** The plug's batch: its first request; the rest are cached. */
    BATCH,
    /** A batch was asked for and did not fit a word: then one tag, as {@link #SINGLE}. */
    BATCH_MISSED,
    /** One tag ({@code blk_mq_get_tag}). */
    SINGLE,
    /** No tag was free ({@code BLK_MQ_NO_TAG} under REQ_NOWAIT). */
    NO_TAG
  }

  /**
   * What {@link #get} did.
   *
   * @param rq the request, or null with {@link How#NO_TAG}
   * @param tagWordRemote whether a tag word it took was last written by another CPU
   * @param requestsRemote requests it set up that another CPU used last
   */
  public record Got(Request rq, How how, boolean tagWordRemote, int requestsRemote) {}

  /**
   * The request queue's limits on a merged request: {@code max_sectors} and {@code max_segments}
   * (null_blk leaves both at the block layer's defaults, BLK_SAFE_MAX_SECTORS 255 and
   * BLK_MAX_SEGMENTS 128; each of t/io_uring's buffers is a segment of its own).
   */
  public record Limits(int maxSectors, int maxSegments) {
    public static final Limits NULL_BLK = new Limits(255, 128);
  }

  private final HwCtx hctx;
  private final ArrayDeque<Request> cached = new ArrayDeque<>();
  private final Limits merges;
  private int nrIos;
  private Request last;

  /**
   * @param nrIos the plug's {@code nr_ios} when this queue's first bio allocates: above 1 asks for
   *     a batch (plug-cached requests), 1 does not
   * @param merges the limits of a merge, or null under {@code nomerges = 2}
   */
  public PlugAlloc(HwCtx hctx, int nrIos, Limits merges) {
    this.hctx = hctx;
    this.nrIos = Math.min(nrIos, Plug.BLK_MAX_REQUEST_COUNT);
    this.merges = merges;
  }

  public PlugAlloc(HwCtx hctx, int nrIos) {
    this(hctx, nrIos, null);
  }

  /** The request for {@code bio}, submitted on {@code cpu}, or the one it merged into. */
  public Got get(int cpu, Bio bio, long atPs) {
    if (merges != null
        && last != null
        && last.canBackMerge(bio, merges.maxSectors(), merges.maxSegments())) {
      last.backMerge(bio);
      hctx.merged();
      return new Got(last, cached.isEmpty() ? How.MERGED : How.MERGED_CACHED, false, 0);
    }
    Got g = allocate(cpu, bio, atPs);
    if (g.rq() != null) {
      last = g.rq();
    }
    return g;
  }

  private Got allocate(int cpu, Bio bio, long atPs) {
    Request rq = cached.pollFirst();
    if (rq != null) {
      hctx.attach(rq, bio);
      return new Got(rq, How.CACHED, false, 0);
    }
    int nrTags = nrIos;
    nrIos = 1;
    boolean missed = false;
    if (nrTags > 1) {
      HwCtx.Batch b = hctx.allocBatch(cpu, nrTags, atPs);
      if (!b.rqs().isEmpty()) {
        List<Request> rqs = b.rqs();
        cached.addAll(rqs.subList(1, rqs.size()));
        hctx.attach(rqs.get(0), bio);
        return new Got(rqs.get(0), How.BATCH, b.tagWordRemote(), b.requestsRemote());
      }
      missed = true;
    }
    HwCtx.Alloc a = hctx.alloc(cpu, bio, atPs);
    if (a.rq() == null) {
      return new Got(null, How.NO_TAG, false, 0);
    }
    return new Got(
        a.rq(),
        missed ? How.BATCH_MISSED : How.SINGLE,
        a.tagWordRemote(),
        a.requestRemote() ? 1 : 0);
  }

  /**
   * {@code blk_finish_plug}: the cached requests no bio took go back.
   *
   * @return how many
   */
  public int finish(int cpu, long atPs) {
    int n = cached.size();
    for (Request rq : cached) {
      hctx.freeUnused(rq, cpu, atPs);
    }
    cached.clear();
    return n;
  }
}

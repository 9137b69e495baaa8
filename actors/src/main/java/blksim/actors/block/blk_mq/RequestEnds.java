package blksim.actors.block.blk_mq;

import blksim.actors.block.BlockDevice;
import blksim.config.BooksSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.blk_mq_tag.Tags;
import blksim.queues.cost.KernelFn;
import java.util.ArrayList;
import java.util.List;

/**
 * The end of a hardware queue's requests: each one's bio completes with the request's status and
 * its tag goes back, one request at a time ({@code blk_mq_end_request}) or as a batch ({@code
 * blk_mq_end_request_batch}). The books' deliberate breaks (a tag leaked, a throw) happen here.
 */
final class RequestEnds {
  /** {@code TAG_COMP_BATCH}: tags blk_mq_end_request_batch frees at once. */
  static final int TAG_COMP_BATCH = 32;

  /**
   * What an end did.
   *
   * @param bios the bios that completed, in order
   * @param remoteWords tag words whose lines came from another CPU
   * @param flushes {@code blk_mq_flush_tag_batch} calls (a batch only)
   * @param runs atomics of those flushes: runs of tags in one word
   * @param mergedBios bios that ended behind their request's first
   */
  record Ended(List<Bio> bios, int remoteWords, int flushes, int runs, int mergedBios) {}

  private final HwCtx hctx;
  private boolean leakOneTag;

  /** Requests this queue ends before it throws on purpose; 0 for never. */
  private long throwAfter;

  private final blksim.queues.cost.CostStep sbitmapLine;

  RequestEnds(HwCtx hctx, BooksSettings books, blksim.queues.cost.CostStep sbitmapLine) {
    this.hctx = hctx;
    this.sbitmapLine = sbitmapLine;
    this.leakOneTag = books.breakOnPurpose() == BooksSettings.Break.LEAK_TAG;
    this.throwAfter = books.breakOnPurpose() == BooksSettings.Break.THROW ? books.throwAfter() : 0;
  }

  /**
   * What blk_mq_end_request_batch of {@code b} costs on the caller's CPU: each request's part, one
   * clock read, each flush of tags and each word's atomic, and with iostats each one's accounting.
   */
  long batchCost(
      blksim.queues.cost.Charger charger, BlockDevice.Call call, boolean iostats, Ended b) {
    int n = b.bios().size() - b.mergedBios();
    long ps =
        charger.charge(call.cpu(), call.what(), KernelFn.BLK_MQ_END_REQUEST_BATCH, n)
            + charger.charge(call.cpu(), call.what(), KernelFn.KTIME_GET_NS, 1)
            + charger.charge(call.cpu(), call.what(), HctxPaths.FLUSH_TAG_BATCH_PATH, b.flushes())
            + charger.charge(call.cpu(), call.what(), KernelFn.SBITMAP_QUEUE_CLEAR_BATCH, b.runs());
    return ps
        + (iostats ? charger.charge(call.cpu(), call.what(), HctxPaths.ACCT_DONE_PATH, n) : 0);
  }

  /**
   * What ending {@code n} requests one by one cost on the caller's CPU: each one's {@code
   * blk_mq_end_request}, the bios behind each one's first, the tag words from other CPUs, and under
   * mq-deadline each one's {@code dd_finish_request} and its driver tag's return.
   */
  long cost(blksim.queues.cost.Charger charger, BlockDevice.Call call, int n, Ended e) {
    return charger.charge(call.cpu(), call.what(), HctxPaths.END_PATH, n)
        + freeCost(charger, call, e);
  }

  /** What an end adds: the bios behind each request's first, tag words from other CPUs. */
  long freeCost(blksim.queues.cost.Charger charger, BlockDevice.Call call, Ended e) {
    int n = e.bios().size() - e.mergedBios();
    return charger.charge(call.cpu(), call.what(), KernelFn.BLK_UPDATE_REQUEST, e.mergedBios())
        + charger.charge(call.cpu(), call.what(), sbitmapLine, e.remoteWords())
        + (hctx.elevator() == null || n == 0
            ? 0
            : charger.charge(call.cpu(), call.what(), KernelFn.DD_FINISH_REQUEST, n)
                // the driver tag goes back too: __blk_mq_free_request puts both tags
                + charger.charge(call.cpu(), call.what(), KernelFn.SBITMAP_QUEUE_CLEAR, n));
  }

  /** Ends each request by itself: its bio completes, its tag is freed. */
  Ended oneByOne(int cpu, List<Request> rqs, long atPs) {
    List<Bio> ended = new ArrayList<>(rqs.size());
    int remote = 0;
    for (Request rq : rqs) {
      if (end(rq, ended)) {
        remote += hctx.freeRequest(rq, cpu, atPs) ? 1 : 0;
      }
    }
    return new Ended(ended, remote, 0, 0, ended.size() - rqs.size());
  }

  /** Ends the requests as a batch: the bios complete, the tags go back TAG_COMP_BATCH at a time. */
  Ended batch(int cpu, List<Request> rqs, long atPs) {
    List<Bio> ended = new ArrayList<>(rqs.size());
    List<Request> toFree = new ArrayList<>(rqs.size());
    for (Request rq : rqs) {
      if (end(rq, ended)) {
        toFree.add(rq);
      }
    }
    int flushes = 0;
    int runs = 0;
    int remote = 0;
    for (int from = 0; from < toFree.size(); from += TAG_COMP_BATCH) {
      List<Request> chunk = toFree.subList(from, Math.min(toFree.size(), from + TAG_COMP_BATCH));
      Tags.Cleared c = hctx.freeBatch(chunk, cpu, atPs);
      flushes++;
      runs += c.runs();
      remote += c.remoteRuns();
    }
    return new Ended(ended, remote, flushes, runs, ended.size() - rqs.size());
  }

  /**
   * The request's bios complete, each with its status; whether its tag is to be freed (not when
   * leaked on purpose).
   */
  private boolean end(Request rq, List<Bio> ended) {
    if (throwAfter > 0 && --throwAfter == 0) {
      throw new IllegalStateException("broken on purpose (books.break = throw)");
    }
    for (Bio bio : rq.bios()) {
      bio.setStatus(rq.error());
      ended.add(bio);
    }
    if (leakOneTag) {
      leakOneTag = false;
      return false;
    }
    return true;
  }
}

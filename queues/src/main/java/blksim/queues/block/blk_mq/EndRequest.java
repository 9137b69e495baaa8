package blksim.queues.block.blk_mq;

import blksim.config.BooksSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.block.blk_mq_tag.Tags;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayList;
import java.util.List;

/**
 * The end of a hardware queue's requests (block/blk-mq.c 5.16; docs/kernel.md section 5.2): each
 * one's bios complete with the request's status and its tag goes back ({@code
 * __blk_mq_free_request}), one request at a time ({@code blk_mq_end_request}) or as a batch ({@code
 * blk_mq_end_request_batch}, 5.16), charged to the ending CPU. The books' deliberate breaks (a tag
 * leaked, a throw) happen here.
 */
public final class EndRequest {
  /** {@code TAG_COMP_BATCH}: tags blk_mq_end_request_batch frees at once. */
  public static final int TAG_COMP_BATCH = 32;

  /** blk_mq_end_request of one request, its tag and queue reference freed. */
  static final KernelFn[] END_PATH = {
    KernelFn.BLK_MQ_END_REQUEST,
    KernelFn.END_REQUEST_STATS,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_DONE,
    KernelFn.BLK_MQ_FREE_REQUEST,
    KernelFn.SBITMAP_QUEUE_CLEAR,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };

  /** The accounting of a request in a batch, with iostats. */
  static final KernelFn[] ACCT_DONE_PATH = {
    KernelFn.END_REQUEST_STATS, KernelFn.BLK_ACCOUNT_IO_DONE
  };

  /** blk_mq_flush_tag_batch: the call, the wake-up check, percpu_ref_put_many. */
  static final KernelFn[] FLUSH_TAG_BATCH_PATH = {
    KernelFn.BLK_MQ_FLUSH_TAG_BATCH,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };

  /**
   * What an end did.
   *
   * @param bios the bios that completed, in order
   * @param ps the time it took on the ending CPU
   */
  public record Ended(List<Bio> bios, long ps) {}

  /**
   * What the frees of an end did.
   *
   * @param bios the bios that completed, in order
   * @param remoteWords tag words whose lines came from another CPU
   * @param flushes {@code blk_mq_flush_tag_batch} calls (a batch only)
   * @param runs atomics of those flushes: runs of tags in one word
   * @param mergedBios bios that ended behind their request's first
   */
  private record Freed(List<Bio> bios, int remoteWords, int flushes, int runs, int mergedBios) {}

  private final HwCtx hctx;
  private final Charger charger;
  private final CostStep sbitmapLine;
  private final boolean iostats;
  private final RunWork runWork;
  private boolean leakOneTag;

  /** Requests this queue ends before it throws on purpose; 0 for never. */
  private long throwAfter;

  /**
   * @param iostats I/O accounting: a batch reads the clock once, each request accounts
   * @param runWork kblockd's runs of the queue, for the restart after an interrupt's frees
   */
  public EndRequest(
      HwCtx hctx, Charger charger, BooksSettings books, boolean iostats, RunWork runWork) {
    this.hctx = hctx;
    this.charger = charger;
    this.sbitmapLine = new CostStep(Contention.LINE_SBITMAP_WORD, charger.costs().lineTransferPs());
    this.iostats = iostats;
    this.runWork = runWork;
    this.leakOneTag = books.breakOnPurpose() == BooksSettings.Break.LEAK_TAG;
    this.throwAfter = books.breakOnPurpose() == BooksSettings.Break.THROW ? books.throwAfter() : 0;
  }

  /**
   * {@code blk_mq_end_request} of each of {@code rqs} on {@code cpu}: its bios complete, its tag is
   * freed; charged: each one's path, the bios behind each one's first ({@code blk_update_request}),
   * the tag words from other CPUs, and under mq-deadline each one's {@code dd_finish_request} and
   * its driver tag's return.
   */
  public Ended blkMqEndRequest(int cpu, CpuTime what, List<Request> rqs, long atPs) {
    List<Bio> ended = new ArrayList<>(rqs.size());
    int remote = 0;
    for (Request rq : rqs) {
      if (end(rq, ended)) {
        remote += hctx.freeRequest(rq, cpu, atPs) ? 1 : 0;
      }
    }
    Freed f = new Freed(ended, remote, 0, 0, ended.size() - rqs.size());
    long ps = charger.charge(cpu, what, END_PATH, rqs.size()) + freeCost(cpu, what, f);
    return new Ended(ended, ps);
  }

  /**
   * {@code blk_mq_end_request_batch} of {@code rqs} on {@code cpu}: the bios complete, the tags go
   * back {@link #TAG_COMP_BATCH} at a time ({@code blk_mq_flush_tag_batch}); charged: each
   * request's part, one clock read, each flush and each word's atomic, with iostats each one's
   * accounting, then what {@link #blkMqEndRequest} adds to each path.
   */
  public Ended blkMqEndRequestBatch(int cpu, CpuTime what, List<Request> rqs, long atPs) {
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
    Freed f = new Freed(ended, remote, flushes, runs, ended.size() - rqs.size());
    int n = f.bios().size() - f.mergedBios();
    long ps =
        charger.charge(cpu, what, KernelFn.BLK_MQ_END_REQUEST_BATCH, n)
            + charger.charge(cpu, what, KernelFn.KTIME_GET_NS, 1)
            + charger.charge(cpu, what, FLUSH_TAG_BATCH_PATH, f.flushes())
            + charger.charge(cpu, what, KernelFn.SBITMAP_QUEUE_CLEAR_BATCH, f.runs());
    ps += iostats ? charger.charge(cpu, what, ACCT_DONE_PATH, n) : 0;
    return new Ended(ended, ps + freeCost(cpu, what, f));
  }

  /**
   * The requests an interrupt ends ({@code end_cmd} of null_blk's expired timers or of its
   * BLOCK_SOFTIRQ), on the CPU of {@code irq}, the interrupt path's task: {@code
   * blk_mq_end_request} of each, the wakes of the tags they freed, then mq-deadline's restart
   * ({@code blk_mq_sched_restart}), whose round goes to the driver before the interrupt's bios end.
   */
  public Continuation blkMqEndRequestInIrq(
      TaskOnCpu irq, CpuTime what, List<Request> rqs, long atPs, SbqWaitState.Caller<?> waits) {
    Ended e = blkMqEndRequest(irq.cpu(), what, rqs, atPs);
    List<Bio> ended = e.bios();
    long t = atPs + e.ps();
    t += waits.sbitmapQueueWakeUp(rqs.size(), t);
    RunWork.Run r = runWork.restartAfterIrq(irq, t, ended);
    if (r.queueRqs() != null) {
      return r.queueRqs();
    }
    // The interrupt runs on the CPU that armed the timer; its bios end there, whoever submitted
    // them.
    return new Continuation.IrqEnded(r.atPs(), ended);
  }

  /** What an end adds: the bios behind each request's first, tag words from other CPUs. */
  private long freeCost(int cpu, CpuTime what, Freed f) {
    int n = f.bios().size() - f.mergedBios();
    return charger.charge(cpu, what, KernelFn.BLK_UPDATE_REQUEST, f.mergedBios())
        + charger.charge(cpu, what, sbitmapLine, f.remoteWords())
        + (hctx.elevator() == null || n == 0
            ? 0
            : charger.charge(cpu, what, KernelFn.DD_FINISH_REQUEST, n)
                // the driver tag goes back too: __blk_mq_free_request puts both tags
                + charger.charge(cpu, what, KernelFn.SBITMAP_QUEUE_CLEAR, n));
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

package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_tag.Tags;

/**
 * Models {@code struct request} (include/linux/blk-mq.h): one of a hardware queue's static
 * requests, {@code tags->static_rqs[tag]}, carrying its bio and those merged behind it.
 */
public final class Request {
  private final int tag;
  private final int hctx;
  private RqState state = RqState.IDLE;
  private boolean allocated;
  private int cpu;
  private int lastCpu = -1;
  private Bio bio;
  private final java.util.List<Bio> merged = new java.util.ArrayList<>(0);
  private long endSector;
  private int sectors;
  private int error;

  /** The driver's tag under a scheduler ({@code rq->tag}; {@link #tag} is then the sched tag). */
  int driverTag = Tags.NO_TAG;

  /** Whether the scheduler took it ({@code rq->elv.priv[0]}): dd_finish_request counts it. */
  boolean elvPriv;

  Request(int tag, int hctx) {
    this.tag = tag;
    this.hctx = hctx;
  }

  void init(int cpu, Bio bio) {
    this.lastCpu = cpu;
    this.allocated = true;
    this.cpu = cpu;
    this.state = RqState.IDLE;
    this.error = 0;
    this.merged.clear();
    attach(bio);
  }

  /** {@code blk_mq_bio_to_request} of a request the plug cached. */
  void attach(Bio bio) {
    this.bio = bio;
    if (bio != null) {
      this.sectors = sectorsOf(bio);
      this.endSector = bio.sector() + sectors;
    }
  }

  private static int sectorsOf(Bio bio) {
    return (bio.sizeBytes() + 511) >> 9;
  }

  /**
   * Whether {@code bio} can go behind this request's last ({@code blk_attempt_bio_merge}, a back
   * merge): it starts where the request ends, and the request stays within the queue's limits.
   */
  public boolean canBackMerge(Bio b, int maxSectors, int maxSegments) {
    return bio != null
        && state == RqState.IDLE
        && b.sector() == endSector
        && sectors + sectorsOf(b) <= maxSectors
        && 1 + merged.size() + 1 <= maxSegments;
  }

  /** {@code bio_attempt_back_merge}: {@code bio} chained behind the request's last. */
  public void backMerge(Bio b) {
    merged.add(b);
    sectors += sectorsOf(b);
    endSector += sectorsOf(b);
  }

  /** Its bios, the first and those merged behind it, in order. */
  public java.util.List<Bio> bios() {
    if (merged.isEmpty()) {
      return bio == null ? java.util.List.of() : java.util.List.of(bio);
    }
    java.util.List<Bio> all = new java.util.ArrayList<>(1 + merged.size());
    all.add(bio);
    all.addAll(merged);
    return all;
  }

  /** Bios merged behind the first. */
  public int mergedCount() {
    return merged.size();
  }

  void free() {
    this.driverTag = Tags.NO_TAG;
    this.elvPriv = false;
    this.allocated = false;
    this.bio = null;
    this.merged.clear();
    this.state = RqState.IDLE;
  }

  /** {@code blk_mq_start_request}. */
  public void start() {
    if (state != RqState.IDLE || !allocated) {
      throw new IllegalStateException("request tag " + tag + " started while " + state);
    }
    state = RqState.IN_FLIGHT;
  }

  /**
   * {@code __blk_mq_requeue_request}: back to idle, its tag kept, to be started again when blk-mq
   * dispatches it next.
   */
  public void requeue() {
    if (state != RqState.IN_FLIGHT) {
      throw new IllegalStateException("request tag " + tag + " requeued while " + state);
    }
    state = RqState.IDLE;
  }

  /** The error it completes with ({@code blk_status_to_errno}, negative), or 0. */
  public int error() {
    return error;
  }

  /** The driver ends it with {@code errno} (negative). */
  public void setError(int errno) {
    this.error = errno;
  }

  /** The driver completed it ({@code blk_mq_complete_request} or a poll). */
  public void markComplete() {
    if (state != RqState.IN_FLIGHT) {
      throw new IllegalStateException("request tag " + tag + " completed while " + state);
    }
    state = RqState.COMPLETE;
  }

  public int tag() {
    return tag;
  }

  /** Index of the hardware queue this request belongs to. */
  public int hctx() {
    return hctx;
  }

  public RqState state() {
    return state;
  }

  public boolean allocated() {
    return allocated;
  }

  /** {@code rq->mq_ctx->cpu}: the CPU that allocated it. */
  public int cpu() {
    return cpu;
  }

  /** The CPU that used this static request last, or -1. */
  int lastCpu() {
    return lastCpu;
  }

  public Bio bio() {
    return bio;
  }
}

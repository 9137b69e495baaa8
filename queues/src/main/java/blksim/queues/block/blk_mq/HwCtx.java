package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_tag.Tags;
import blksim.queues.block.mq_deadline.MqDeadline;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.time.TimeWeighted;

/**
 * Models {@code struct blk_mq_hw_ctx} (include/linux/blk-mq.h) with its {@code blk_mq_tags}: a
 * hardware queue's tags and static requests. Under a scheduler ({@link MqDeadline}) the requests
 * and the tags they are allocated with are the scheduler's ({@code hctx->sched_tags}, {@code
 * q->nr_requests} of them), and each request takes a driver tag ({@code hctx->tags}) at dispatch.
 */
public final class HwCtx {
  private final int index;
  private final HctxType type;
  private final Tags tags;
  private final Tags driverTags;
  private final MqDeadline elevator;
  private final Request[] staticRqs;
  private final TimeWeighted inUse = new TimeWeighted();
  private long dispatched;
  private long completed;
  private long noTag;
  private long busyCount;
  private long requeueCount;
  private long redispatchedCount;
  private long mergedCount;

  /**
   * @param index {@code hctx->queue_num}
   * @param nrTags the tag set's queue depth
   * @param nrCpus CPUs that may allocate
   */
  public HwCtx(int index, HctxType type, int nrTags, int nrCpus) {
    this(index, type, nrTags, nrCpus, null);
  }

  /**
   * @param hints each CPU's first sbitmap hint, or null for 0
   */
  public HwCtx(
      int index, HctxType type, int nrTags, int nrCpus, java.util.random.RandomGenerator hints) {
    this(index, type, nrTags, nrCpus, hints, 0);
  }

  /**
   * @param nrTags the tags requests are allocated with: the tag set's depth, or under a scheduler
   *     {@code q->nr_requests}
   * @param nrDriverTags the tag set's depth under mq-deadline, or 0 for no scheduler
   */
  public HwCtx(
      int index,
      HctxType type,
      int nrTags,
      int nrCpus,
      java.util.random.RandomGenerator hints,
      int nrDriverTags) {
    this(index, type, nrTags, nrTags, nrCpus, hints, nrDriverTags);
  }

  /**
   * @param mapDepth the depth the allocation tags' sbitmap was laid out for (their words), before
   *     nr_requests shrank it
   */
  public HwCtx(
      int index,
      HctxType type,
      int nrTags,
      int mapDepth,
      int nrCpus,
      java.util.random.RandomGenerator hints,
      int nrDriverTags) {
    this.index = index;
    this.type = type;
    this.tags = new Tags(nrTags, nrCpus, hints, mapDepth);
    this.driverTags = nrDriverTags > 0 ? new Tags(nrDriverTags, nrCpus, hints) : null;
    this.elevator = nrDriverTags > 0 ? new MqDeadline() : null;
    this.staticRqs = new Request[nrTags];
    for (int tag = 0; tag < nrTags; tag++) {
      staticRqs[tag] = new Request(tag, index);
    }
  }

  /**
   * What {@link #alloc} did.
   *
   * @param rq the request, or null when no tag was free
   * @param tagWordRemote whether the tag's sbitmap word was last written by another CPU
   * @param requestRemote whether the request was last used by another CPU: its lines move over
   */
  public record Alloc(Request rq, boolean tagWordRemote, boolean requestRemote) {}

  /**
   * {@code __blk_mq_alloc_requests} for one bio: a tag and its request, bio attached ({@code
   * blk_mq_bio_to_request}).
   */
  public Alloc alloc(int cpu, Bio bio, long atPs) {
    int tag = tags.get(cpu);
    if (tag == Tags.NO_TAG) {
      noTag++;
      return new Alloc(null, false, false);
    }
    inUse.set(atPs, tags.inUse());
    Request rq = staticRqs[tag];
    boolean requestRemote = rq.lastCpu() >= 0 && rq.lastCpu() != cpu;
    rq.init(cpu, bio);
    return new Alloc(rq, tags.remoteTouch(), requestRemote);
  }

  /**
   * What {@link #allocBatch} did.
   *
   * @param rqs the requests, their tags lowest first; none when the batch did not fit a word
   * @param tagWordRemote whether their sbitmap word was last written by another CPU
   * @param requestsRemote how many of them another CPU used last
   */
  public record Batch(java.util.List<Request> rqs, boolean tagWordRemote, int requestsRemote) {}

  /**
   * {@code __blk_mq_alloc_requests_batch} (5.16): up to {@code nrTags} tags from one sbitmap word
   * ({@link Tags#getBatch}), each request set up ({@code blk_mq_rq_ctx_init}) without a bio; the
   * plug caches them, and {@link #attach} gives each its bio.
   */
  public Batch allocBatch(int cpu, int nrTags, long atPs) {
    int[] got = tags.getBatch(cpu, nrTags);
    if (got.length == 0) {
      return new Batch(java.util.List.of(), false, 0);
    }
    boolean wordRemote = tags.remoteTouch();
    inUse.set(atPs, tags.inUse());
    java.util.List<Request> rqs = new java.util.ArrayList<>(got.length);
    int remote = 0;
    for (int tag : got) {
      Request rq = staticRqs[tag];
      remote += rq.lastCpu() >= 0 && rq.lastCpu() != cpu ? 1 : 0;
      rq.init(cpu, null);
      rqs.add(rq);
    }
    return new Batch(rqs, wordRemote, remote);
  }

  /** A plug-cached request takes its bio ({@code blk_mq_bio_to_request}). */
  public void attach(Request rq, Bio bio) {
    checkOwned(rq);
    rq.attach(bio);
  }

  /**
   * {@code blk_mq_free_plug_rqs}: a request the plug cached and no bio took goes back unused, its
   * tag freed; it was never dispatched.
   */
  public void freeUnused(Request rq, int cpu, long atPs) {
    checkOwned(rq);
    if (rq.bio() != null) {
      throw new InvariantBroken("hctx" + index + ": request tag " + rq.tag() + " has a bio");
    }
    rq.free();
    tags.put(rq.tag(), cpu);
    inUse.set(atPs, tags.inUse());
  }

  /** What {@link #getDriverTag} did: whether it got one, and whether its word came over. */
  public record DriverTag(boolean got, boolean remote) {}

  /** {@code blk_mq_get_driver_tag} at dispatch under a scheduler. */
  public DriverTag getDriverTag(Request rq, int cpu) {
    checkOwned(rq);
    int tag = driverTags.get(cpu);
    if (tag == Tags.NO_TAG) {
      return new DriverTag(false, false);
    }
    rq.driverTag = tag;
    return new DriverTag(true, driverTags.remoteTouch());
  }

  /** {@code dd_insert_request}: the scheduler takes the request. */
  public int insert(Request rq, long atPs) {
    rq.elvPriv = true;
    return elevator.insert(rq, atPs);
  }

  /** The scheduler, or null for none. */
  public MqDeadline elevator() {
    return elevator;
  }

  /**
   * {@code __blk_mq_free_request} under a scheduler: {@code dd_finish_request} and the driver tag
   * back; the caller frees the sched tag.
   */
  private void freeSchedParts(Request rq, int cpu) {
    if (rq.elvPriv) {
      elevator.finish();
    }
    if (rq.driverTag != Tags.NO_TAG) {
      driverTags.put(rq.driverTag, cpu);
    }
  }

  /**
   * {@code blk_mq_flush_tag_batch}: ends a batch of this queue's requests at once ({@link
   * Tags#putBatch}).
   */
  public Tags.Cleared freeBatch(java.util.List<Request> rqs, int cpu, long atPs) {
    int[] batch = new int[rqs.size()];
    for (int i = 0; i < batch.length; i++) {
      Request rq = rqs.get(i);
      checkOwned(rq);
      freeSchedParts(rq, cpu);
      rq.free();
      batch[i] = rq.tag();
    }
    Tags.Cleared c = tags.putBatch(batch, batch.length, cpu);
    inUse.set(atPs, tags.inUse());
    completed += batch.length;
    return c;
  }

  private void checkOwned(Request rq) {
    if (rq.hctx() != index || !rq.allocated() || staticRqs[rq.tag()] != rq) {
      throw new InvariantBroken(
          "hctx" + index + ": request tag " + rq.tag() + " freed but not allocated here");
    }
  }

  /** {@link #alloc}'s request alone, or null when no tag is free. */
  public Request allocRequest(int cpu, Bio bio, long atPs) {
    return alloc(cpu, bio, atPs).rq();
  }

  /** Counts a request handed to the driver's {@code queue_rq}. */
  public void dispatched(Request rq) {
    rq.start();
    dispatched++;
  }

  /**
   * A request the driver turned away ({@code BLK_STS_RESOURCE}, or {@code blk_mq_requeue_request})
   * is idle again, its tag kept.
   *
   * @param busy whether it was {@code BLK_STS_RESOURCE} (back on the dispatch list) rather than a
   *     requeue (the requeue list)
   */
  public void turnedAway(Request rq, boolean busy) {
    rq.requeue();
    if (busy) {
      busyCount++;
    } else {
      requeueCount++;
    }
  }

  /** kblockd dispatches a request turned away: {@code blk_mq_start_request} again. */
  public void redispatched(Request rq) {
    rq.start();
    redispatchedCount++;
  }

  /** A bio went behind a request of this queue ({@code bio_attempt_back_merge}). */
  public void merged() {
    mergedCount++;
  }

  /** Bios merged into requests of this queue: its bios are its requests plus these. */
  public long mergedCount() {
    return mergedCount;
  }

  /** Requests the driver returned BLK_STS_RESOURCE for. */
  public long busyCount() {
    return busyCount;
  }

  /** Requests the driver gave to blk_mq_requeue_request. */
  public long requeueCount() {
    return requeueCount;
  }

  /**
   * {@code blk_mq_free_request} after {@code blk_mq_end_request}: tag freed on {@code cpu}.
   *
   * @return whether the tag's sbitmap word was last written by another CPU: its line moves over
   * @throws InvariantBroken if the request is not allocated here
   */
  public boolean freeRequest(Request rq, int cpu, long atPs) {
    checkOwned(rq);
    if (elevator != null) {
      freeSchedParts(rq, cpu);
    }
    rq.free();
    tags.put(rq.tag(), cpu);
    inUse.set(atPs, tags.inUse());
    completed++;
    return tags.remoteTouch();
  }

  public int index() {
    return index;
  }

  public HctxType type() {
    return type;
  }

  public Tags tags() {
    return tags;
  }

  /** The driver's tags under a scheduler, or null. */
  public Tags driverTags() {
    return driverTags;
  }

  /** Tags in use over virtual time: the queue depth of this hardware queue. */
  public TimeWeighted inUse() {
    return inUse;
  }

  /** Allocations that found no free tag ({@code BLK_MQ_NO_TAG} under {@code REQ_NOWAIT}). */
  public long noTagCount() {
    return noTag;
  }

  public long dispatchedCount() {
    return dispatched;
  }

  /** Checks that every tag is free and every request idle. */
  public void audit(Books books) {
    books.held(tags.inUse(), "hctx" + index + ": tags still allocated at the end of the run");
    for (Request rq : staticRqs) {
      books.drained(
          !rq.allocated(),
          "hctx" + index + ": request tag " + rq.tag() + " still allocated (" + rq.state() + ")");
    }
    books.drainedEqual(dispatched, completed, "hctx" + index + ": requests dispatched vs freed");
    if (elevator != null) {
      books.held(driverTags.inUse(), "hctx" + index + ": driver tags still held");
      elevator.audit(books, "hctx" + index);
    }
    books.drainedEqual(
        busyCount + requeueCount,
        redispatchedCount,
        "hctx" + index + ": requests turned away (dispatch or requeue list) vs dispatched again");
  }
}

package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_sched.BlkMqSched;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code blk_mq_submit_bio} (block/blk-mq.c 5.16; docs/kernel.md section 5.2) of the bios one task
 * submits to one hardware queue under one plug: each bio merges behind the plug's last request, or
 * takes a request the plug cached, or allocates one ({@link PlugAlloc}), or finds no tag; what the
 * bios ran is charged to the submitting CPU by how each got its request, then {@code
 * blk_finish_plug} hands the plug to {@link FlushPlugList}. A bio that finds no tag ends with
 * {@code BLK_STS_AGAIN} under REQ_NOWAIT, and otherwise sleeps in {@code blk_mq_get_tag} with the
 * bios after it ({@link SbqWaitState}), after the plug's flush when it holds requests.
 */
public final class SubmitBio {
  /** EAGAIN, what {@code blk_status_to_errno(BLK_STS_AGAIN)} gives. */
  public static final int BLK_STS_AGAIN_ERRNO = 11;

  /**
   * The order a submission's paths are charged in (each function's draws of variation follow it).
   */
  static final PlugAlloc.How[] CHARGE_ORDER = {
    PlugAlloc.How.SINGLE,
    PlugAlloc.How.CACHED,
    PlugAlloc.How.BATCH,
    PlugAlloc.How.BATCH_MISSED,
    PlugAlloc.How.NO_TAG,
    PlugAlloc.How.MERGED,
    PlugAlloc.How.MERGED_CACHED
  };

  /** What a bio runs from submit_bio on, by how it got its request. */
  static KernelFn[] pathOf(PlugAlloc.How how) {
    return switch (how) {
      case MERGED_CACHED -> MERGED_CACHED_PATH;
      case MERGED -> MERGED_PATH;
      case CACHED -> CACHED_PATH;
      case BATCH -> BATCH_PATH;
      case BATCH_MISSED -> MISSED_PATH;
      case SINGLE -> SUBMIT_PATH;
      case NO_TAG -> NO_TAG_PATH;
    };
  }

  /**
   * {@code submit_bio_noacct} and {@code bio_queue_enter} with its two RCU sections, the start of
   * every path that enters the queue, followed by {@code rest}.
   */
  private static KernelFn[] enteringQueue(KernelFn... rest) {
    KernelFn[] enter = {
      KernelFn.SUBMIT_BIO_NOACCT,
      KernelFn.BIO_QUEUE_ENTER,
      KernelFn.RCU_READ_LOCK,
      KernelFn.RCU_READ_LOCK_NESTED,
      KernelFn.RCU_READ_UNLOCK_NESTED,
      KernelFn.RCU_READ_UNLOCK
    };
    KernelFn[] path = java.util.Arrays.copyOf(enter, enter.length + rest.length);
    System.arraycopy(rest, 0, path, enter.length, rest.length);
    return path;
  }

  /** From submit_bio to a request of its own in the plug, per bio. */
  static final KernelFn[] SUBMIT_PATH =
      enteringQueue(
          KernelFn.BLK_MQ_SUBMIT_BIO,
          KernelFn.BLK_MQ_ALLOC_REQUESTS,
          KernelFn.SBITMAP_QUEUE_GET,
          KernelFn.BLK_MQ_RQ_CTX_INIT,
          KernelFn.KTIME_GET_NS,
          KernelFn.BLK_ACCOUNT_IO_START);

  /**
   * A bio that takes a request the plug cached (5.16): no queue enter, no {@code
   * __blk_mq_alloc_requests} and no tag ({@code blk_mq_get_request} pops it); the request's set-up
   * ({@code blk_mq_rq_ctx_init}, in the batch's loop) is charged to it.
   */
  static final KernelFn[] CACHED_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_RQ_CTX_INIT,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_START
  };

  /** The bio whose allocation got the plug's batch of tags. */
  static final KernelFn[] BATCH_PATH =
      enteringQueue(
          KernelFn.BLK_MQ_SUBMIT_BIO,
          KernelFn.BLK_MQ_ALLOC_REQUESTS,
          KernelFn.SBITMAP_QUEUE_GET_BATCH,
          KernelFn.BLK_MQ_RQ_CTX_INIT,
          KernelFn.KTIME_GET_NS,
          KernelFn.BLK_ACCOUNT_IO_START);

  /** The bio whose batch did not fit a word: the attempt, then one tag. */
  static final KernelFn[] MISSED_PATH =
      enteringQueue(
          KernelFn.BLK_MQ_SUBMIT_BIO,
          KernelFn.BLK_MQ_ALLOC_REQUESTS,
          KernelFn.SBITMAP_QUEUE_GET_BATCH,
          KernelFn.SBITMAP_QUEUE_GET,
          KernelFn.BLK_MQ_RQ_CTX_INIT,
          KernelFn.KTIME_GET_NS,
          KernelFn.BLK_ACCOUNT_IO_START);

  /** A bio that went behind the plug's last request, having entered the queue and left it. */
  static final KernelFn[] MERGED_PATH =
      enteringQueue(
          KernelFn.BLK_MQ_SUBMIT_BIO,
          KernelFn.BLK_ATTEMPT_PLUG_MERGE,
          KernelFn.BIO_ATTEMPT_BACK_MERGE,
          KernelFn.BLK_QUEUE_EXIT,
          KernelFn.RCU_READ_LOCK,
          KernelFn.RCU_READ_UNLOCK);

  /** The same with a cached request at hand (5.16): the merge is tried before any queue enter. */
  static final KernelFn[] MERGED_CACHED_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_ATTEMPT_PLUG_MERGE,
    KernelFn.BIO_ATTEMPT_BACK_MERGE
  };

  /** The merge tries of a bio that does not merge, when merges are on. */
  static final KernelFn[] MERGE_MISS_PATH = {
    KernelFn.BLK_ATTEMPT_PLUG_MERGE, KernelFn.BLK_MQ_SCHED_BIO_MERGE
  };

  /** What a bio that finds no tag runs, from submit_bio to bio_wouldblock_error. */
  public static final KernelFn[] NO_TAG_PATH =
      enteringQueue(
          KernelFn.BLK_MQ_SUBMIT_BIO,
          KernelFn.BLK_MQ_ALLOC_REQUESTS,
          KernelFn.BLK_MQ_GET_TAG_FAILED,
          KernelFn.BLK_QUEUE_EXIT,
          KernelFn.RCU_READ_LOCK,
          KernelFn.RCU_READ_UNLOCK,
          KernelFn.BIO_WOULDBLOCK_ERROR);

  /**
   * A bio without REQ_NOWAIT that finds no tag: blk_mq_get_tag puts the task on the tag wait queue
   * ({@code sbitmap_prepare_to_wait}), tries once more, and sleeps ({@code io_schedule}).
   */
  public static final KernelFn[] TAG_SLEEP_PATH =
      enteringQueue(
          KernelFn.BLK_MQ_SUBMIT_BIO,
          KernelFn.BLK_MQ_GET_TAG_FAILED,
          KernelFn.SBITMAP_PREPARE_TO_WAIT,
          KernelFn.SCHEDULE);

  /** Woken, it found no tag again: back on the wait queue, asleep. */
  static final KernelFn[] TAG_SLEEP_AGAIN_PATH = {
    KernelFn.SCHEDULE,
    KernelFn.BLK_MQ_GET_TAG_FAILED,
    KernelFn.SBITMAP_PREPARE_TO_WAIT,
    KernelFn.SCHEDULE
  };

  /** Woken, it got a tag: switched in, off the wait queue, the rest of the allocation. */
  static final KernelFn[] TAG_WOKEN_PATH = {
    KernelFn.SCHEDULE,
    KernelFn.SBITMAP_QUEUE_GET,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.BLK_MQ_RQ_CTX_INIT,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_START
  };

  /** A request the plug cached that no bio took, freed at blk_finish_plug. */
  static final KernelFn[] UNUSED_PATH = {
    KernelFn.BLK_MQ_FREE_REQUEST,
    KernelFn.SBITMAP_QUEUE_CLEAR,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };

  private final String name;
  private final HwCtx hctx;
  private final HctxFeatures features;
  private final Charger charger;
  private final CostStep sbitmapLine;
  private final CostStep requestLine;
  private final BlkMqSched sched;
  private final FlushPlugList flush;

  /**
   * @param name the hardware queue's, for what the books say
   * @param sched the queue's scheduler, or null for none
   */
  public SubmitBio(
      String name,
      HwCtx hctx,
      HctxFeatures features,
      Charger charger,
      BlkMqSched sched,
      FlushPlugList flush) {
    this.name = name;
    this.hctx = hctx;
    this.features = features;
    this.charger = charger;
    this.sched = sched;
    this.flush = flush;
    long lineTransferPs = charger.costs().lineTransferPs();
    this.sbitmapLine = new CostStep(Contention.LINE_SBITMAP_WORD, lineTransferPs);
    this.requestLine = new CostStep(Contention.LINE_REQUEST, lineTransferPs);
  }

  /**
   * {@code blk_mq_submit_bio} of each of {@code bios}, submitted by {@code task} on its CPU under
   * one plug, then {@code blk_finish_plug}.
   *
   * @param plugNrIos the plug's {@code nr_ios} when these bios come to allocate
   * @param waits the queue's tag wait queue, as the submitting task's call meets it
   */
  public Continuation blkMqSubmitBio(
      TaskOnCpu task,
      CpuTime what,
      long atPs,
      List<Bio> bios,
      int plugNrIos,
      SbqWaitState.Caller<?> waits) {
    return submit(task, what, atPs, bios, plugNrIos, new Plug(bios.size()), waits);
  }

  /**
   * The task that slept for a tag runs again: {@code blk_mq_get_tag} tries again for the first of
   * {@code bios}, and with a tag the allocation and the submission of the rest go on under a plug
   * of their own; without one it sleeps again.
   */
  public Continuation blkMqGetTag(
      TaskOnCpu task, CpuTime what, long atPs, List<Bio> bios, SbqWaitState.Caller<?> waits) {
    int cpu = task.cpu();
    Bio bio = bios.get(0);
    HwCtx.Alloc a = hctx.alloc(cpu, bio, atPs);
    if (a.rq() == null) {
      waits.blkMqGetTagSleep(bios, atPs, TAG_SLEEP_AGAIN_PATH);
      return Continuation.ASLEEP;
    }
    bio.setCookie(hctx.index());
    Plug plug = new Plug(bios.size());
    plug.add(a.rq());
    long t =
        atPs
            + charger.charge(cpu, what, TAG_WOKEN_PATH, 1)
            + charger.charge(cpu, what, sbitmapLine, a.tagWordRemote() ? 1 : 0);
    return submit(task, what, t, bios.subList(1, bios.size()), 1, plug, waits);
  }

  /**
   * The bios' requests into {@code plug}, what they ran charged, the cached requests no bio took
   * freed ({@code blk_mq_free_plug_rqs}, whose frees wake sleepers), then the plug's flush.
   */
  private Continuation submit(
      TaskOnCpu task,
      CpuTime what,
      long atPs,
      List<Bio> bios,
      int plugNrIos,
      Plug plug,
      SbqWaitState.Caller<?> waits) {
    int cpu = task.cpu();
    PlugAlloc alloc =
        new PlugAlloc(
            hctx,
            features.plugBatchAlloc() ? plugNrIos : 1,
            features.nomerges() < 2 ? PlugAlloc.Limits.NULL_BLK : null);
    int remote = 0;
    int remoteRqs = 0;
    int[] how = new int[PlugAlloc.How.values().length];
    List<Bio> wouldBlock = new ArrayList<>();
    List<Bio> rest = null;
    for (int i = 0; i < bios.size() && rest == null; i++) {
      Bio bio = bios.get(i);
      PlugAlloc.Got a = alloc.get(cpu, bio, atPs);
      Request rq = a.rq();
      if (rq == null && waits.blocks(bio)) {
        rest = bios.subList(i, bios.size());
        continue;
      }
      how[a.how().ordinal()]++;
      remote += a.tagWordRemote() ? 1 : 0;
      remoteRqs += a.requestsRemote();
      if (rq == null) {
        // blk_mq_get_new_requests under REQ_NOWAIT: bio_wouldblock_error, BLK_STS_AGAIN.
        bio.setStatus(-BLK_STS_AGAIN_ERRNO);
        wouldBlock.add(bio);
        continue;
      }
      bio.setCookie(hctx.index());
      if (a.how() != PlugAlloc.How.MERGED && a.how() != PlugAlloc.How.MERGED_CACHED) {
        plug.add(rq);
      }
    }
    int merged = how[PlugAlloc.How.MERGED.ordinal()] + how[PlugAlloc.How.MERGED_CACHED.ordinal()];
    int unused = alloc.finish(cpu, atPs);
    long t = atPs;
    for (PlugAlloc.How h : CHARGE_ORDER) {
      t += charger.charge(cpu, what, pathOf(h), how[h.ordinal()]);
      if (h == PlugAlloc.How.NO_TAG) {
        t += charger.charge(cpu, what, UNUSED_PATH, unused);
      }
    }
    int tried = bios.size() - (rest == null ? 0 : rest.size());
    int missed = features.nomerges() < 2 ? tried - merged : 0;
    t +=
        (missed > 0 ? charger.charge(cpu, what, MERGE_MISS_PATH, missed) : 0)
            + (sched == null ? 0 : sched.blkMqSchedBioMerge(cpu, what, missed, t))
            + (sched == null ? 0 : sched.prepareRequest(cpu, what, plug.size() + unused))
            + charger.charge(cpu, what, sbitmapLine, remote)
            + charger.charge(cpu, what, requestLine, remoteRqs);
    t += waits.sbitmapQueueWakeUp(unused, t);
    if (rest != null && !wouldBlock.isEmpty()) {
      throw new InvariantBroken(name + ": a submission both failed with -EAGAIN and slept");
    }
    if (rest != null && plug.size() == 0) {
      waits.blkMqGetTagSleep(rest, t, TAG_SLEEP_PATH);
      return Continuation.ASLEEP;
    }
    if (rest != null) {
      // on the wait queue already (sbitmap_prepare_to_wait), it sleeps once the flush is queued
      waits.prepareToWaitBeforeFlush(rest, t);
    }
    if (plug.size() == 0) {
      return new Continuation.Submitted(t, 0, List.of(), wouldBlock);
    }
    return flush.blkMqFlushPlugList(task, what, plug, t, wouldBlock);
  }
}

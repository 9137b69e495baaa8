package blksim.config;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The seeds' patches (docs/seeds.md) and the changes of the kernel versions that the presets run
 * (docs/kernel.md section 8), each a toggle of the modelled path.
 *
 * <p>A patch whose effect is only a price, the same work on every path that runs its functions, is
 * priced by data: {@code blksim.patches.NAME} of {@code reference.conf} ({@link PatchData}), in the
 * language a user describes a patch of their own in (docs/your-patch.md). The others change what
 * the path does (bio cache lists, batching, the DM clone's cache), or their price hangs on the
 * run's knobs (iostats, {@code -F}/{@code -B}) or on one variant of a function, and are code.
 */
public enum Patch {
  /**
   * "block: cache bdev in struct file for raw bdev IO" (Pavel Begunkov, seed 000 1/3; applied,
   * commit 82f652990a4a, 5.16): {@code file->private_data} instead of {@code
   * I_BDEV(file->f_mapping->host)}.
   */
  BDEV_CACHE_IN_FILE("bdev-cache-in-file", Pricing.DATA),
  /**
   * "block: don't hide inode from block_device users" (seed 000 2/3; not applied upstream): the
   * inode inside {@code struct block_device}, {@code I_BDEV} inline, no {@code bd_inode} pointer.
   */
  BDEV_INODE_INLINE("bdev-inode-inline", Pricing.DATA),
  /**
   * "blk-mq: optimise *end_request non-stat path" (seed 000 3/3; applied, commit e945e2edb670,
   * 5.16): the statistics block of {@code __blk_mq_end_request} only under {@code
   * blk_mq_need_time_stamp()}.
   */
  END_REQUEST_FAST_PATH("end-request-fast-path"),
  /**
   * "block: Optimize bio_init()" (Bart Van Assche, seed 003): one compound-literal assignment,
   * which gcc turns into {@code rep stosq} of 16 qwords, instead of field-by-field stores.
   */
  BIO_INIT_COMPOUND("bio-init-compound", Pricing.DATA),
  /**
   * "implement pcpu bio caching for IRQ I/O" (Pavel Begunkov, v4 2022-11-02, applied for 6.2):
   * io_uring asks for the per-CPU bio cache on every read, not only on IOPOLL rings, and a bio put
   * from interrupt context (or not polled) goes to a second, IRQ-safe list ({@code free_list_irq})
   * that allocation takes over once it holds {@code ALLOC_CACHE_THRESHOLD}; the cache holds at most
   * {@code ALLOC_CACHE_MAX} (256) in all.
   */
  BIO_CACHE_IRQ_LIST("bio-cache-irq-list"),
  /**
   * "block: allow BIOSET_PERCPU_CACHE use from bio_alloc_clone" (Mike Snitzer, seed 002 1/3, 5.19):
   * {@code bio_alloc_clone} takes a REQ_POLLED bio's clone from the bio_set's per-CPU cache when it
   * has one ({@code bio_alloc_percpu_cache}), and marks it to go back there.
   */
  DM_CLONE_PERCPU_CACHE("dm-clone-percpu-cache"),
  /**
   * "dm: enable BIOSET_PERCPU_CACHE for dm_io bioset" (seed 002 2/3): each DM device's {@code
   * io_bs} is created with a per-CPU cache.
   */
  DM_IO_BIOSET_PERCPU_CACHE("dm-io-bioset-percpu-cache"),
  /**
   * "dm: conditionally enable BIOSET_PERCPU_CACHE for bio-based dm_io bioset" (seed 002 3/3): the
   * cache of 2/3 only for a bio-based table that supports polling ({@code dm_table_supports_poll}).
   */
  DM_PERCPU_CACHE_ONLY_IF_POLL("dm-percpu-cache-only-if-poll"),
  /**
   * Plug-cached requests (5.16: commit 47c122e35d7e "block: pre-allocate requests if plug is
   * started and is a batch", 9672b0d43782 "sbitmap: add __sbitmap_queue_get_batch()"): the first
   * request a plug allocates asks {@code blk_mq_get_tags} for the plug's {@code nr_ios} tags from
   * one sbitmap word; the plug caches the requests, and the bios after it take one each without
   * {@code bio_queue_enter} or a tag of their own. A batch larger than a word gets nothing.
   */
  PLUG_BATCH_ALLOC("plug-batch-alloc"),
  /**
   * Batched completion of null_blk's polled requests (5.17 {@code null_poll}: {@code
   * blk_mq_add_to_batch}, then {@code blk_mq_end_request_batch}; 5.16's {@code null_poll} ends each
   * request by itself): the tags of a batch freed together by {@code blk_mq_flush_tag_batch}, one
   * atomic per word, one {@code percpu_ref_put_many} of the queue references.
   */
  NULL_POLL_BATCH("null-poll-batch"),
  /**
   * "io_uring: optimise rsrc referencing" (Pavel Begunkov, 5.16, commit ab4094024784; posted as
   * "io_uring: optimise ctx referencing", lore
   * b40d8c5bc77d3c9550df8a319117a374ac85f8f4.1633817310.git.asml.silence@gmail.com): a request's
   * reference to the fixed file and buffer node comes from a count cached in the ring, refilled 100
   * at a time, where each request took and dropped a per-CPU reference of its own.
   */
  RSRC_REF_CACHE("io-uring-rsrc-ref-cache"),
  /**
   * "io_uring: optimise io_req_set_rsrc_node()" (Pavel Begunkov, 5.16; lore
   * 67a25557b8a51e90bfd578447a6f1671911b05ae.1633817310.git.asml.silence@gmail.com, the other half
   * of the "3.43 -> ~3.6 MIOPS" pair): the ring's context passed in, where the function loaded
   * {@code req->ctx} again at a request's first registered file or buffer.
   */
  RSRC_NODE_CTX("io-uring-rsrc-node-ctx"),
  /**
   * "block: inline fast path of driver tag allocation" (Jens Axboe, 5.16, commit a808a9d545cd):
   * without a scheduler or shared tags, dispatch no longer calls the out-of-line {@code
   * blk_mq_get_driver_tag}.
   */
  DRIVER_TAG_INLINE("driver-tag-inline", Pricing.DATA),
  /**
   * "block: only mark bio as tracked if it really is tracked" (Jens Axboe, 5.16, commit
   * 90b8faa0e8de): {@code bio_endio} no longer follows {@code bi_bdev->bd_disk->queue->rq_qos} for
   * every bio of a queue without QoS policies.
   */
  BIO_TRACKED_RQ_QOS("bio-tracked-rq-qos", Pricing.DATA),
  /**
   * Pavel Begunkov's "skip advance" for async single-bio I/O (5.16; lore
   * 48fd2fe9d0367620ceda34b79857892841f18668.1634676157.git.asml.silence@gmail.com): a registered
   * buffer's bvec is set on the bio ({@code bio_iov_bvec_set}) without {@code
   * bio_iov_iter_get_pages} and {@code iov_iter_advance}.
   */
  BIO_IOV_BVEC_SET("bio-iov-bvec-set"),
  /**
   * "block: don't bother iter advancing a fully done bio" (Jens Axboe, 5.16, commit d4aa57a1cac3):
   * a request's completion sets a bio's remaining size to 0 instead of calling {@code
   * __bio_advance}.
   */
  BIO_ADVANCE_SKIP("bio-advance-skip", Pricing.DATA),
  /**
   * "block: move update request helpers into blk-mq.c" (5.16, commit 9be3e06fb75a): {@code
   * blk_update_request} in blk-mq.c, no longer an out-of-line call for each completion.
   */
  UPDATE_REQUEST_IN_BLK_MQ("update-request-in-blk-mq", Pricing.DATA),
  /**
   * "block: don't call blk_status_to_errno in blk_update_request" (Christoph Hellwig, 5.16, commit
   * 8a7d267b4a2c): no call for a successful request.
   */
  STATUS_ERRNO_SKIP("status-errno-skip", Pricing.DATA),
  /**
   * "block: store elevator state in request" (Jens Axboe, 5.16, commit 2ff0682da6e0): RQF_ELV, so
   * that the request's set-up, its submission, its issue and its free test the request's flags
   * instead of loading {@code rq->q->elevator}.
   */
  RQF_ELV("rqf-elv", Pricing.DATA),
  /**
   * Pavel Begunkov's {@code blk_mq_rq_ctx_init} patches (5.16, commits 4f266f2be822, 605f784e4f5f,
   * 128459062bc9): without an elevator the hash and rb-node of a request are not initialised, and
   * the queue, context and hctx are not loaded again.
   */
  RQ_CTX_INIT_NO_ELV("rq-ctx-init-no-elv", Pricing.DATA),
  /**
   * "block: remove debugfs blk_mq_ctx dispatched/merged/completed attributes" (Jens Axboe, 5.16,
   * commit 9a14d6ce4135): no software-queue counter at a request's allocation and its free.
   */
  REMOVE_CTX_COUNTERS("remove-ctx-counters", Pricing.DATA),
  /**
   * "block: remove some blk_mq_hw_ctx debugfs entries" (Jens Axboe, 5.16, commit afd7de03c526): no
   * {@code hctx->queued} per request, {@code hctx->dispatched[]} per dispatch, and no poll counters
   * ({@code poll_considered}, {@code poll_invoked}, {@code poll_success}) per poll.
   */
  REMOVE_HCTX_COUNTERS("remove-hctx-counters"),
  /**
   * Pavel Begunkov's "optimise blk_try_enter_queue" (5.16; lore
   * cover.1634822969.git.asml.silence@gmail.com): {@code percpu_ref_tryget_live_rcu} inside {@code
   * blk_try_enter_queue}'s RCU read-side section, where {@code percpu_ref_tryget_live} opened a
   * section of its own: one {@code __rcu_read_lock}/{@code __rcu_read_unlock} pair less per queue
   * enter.
   */
  QUEUE_ENTER_RCU_ONCE("queue-enter-rcu-once"),
  /**
   * Pavel Begunkov's "cache request_queue pointer" (5.16; lore
   * cover.1634219547.git.asml.silence@gmail.com, "+~1%" on null_blk): {@code bdev_get_queue} reads
   * {@code bdev->bd_queue} where it followed {@code bdev->bd_disk->queue}, one dependent load less
   * in {@code submit_bio_checks}, {@code bio_queue_enter}, {@code blk_mq_submit_bio} and {@code
   * bio_poll}.
   */
  BDEV_CACHED_QUEUE("bdev-cached-queue", Pricing.DATA),
  /**
   * "block: use flags instead of bit fields for blkdev_dio" (Jens Axboe, 5.16; lore
   * 4b427811-106d-53b2-bdfc-afd022282067@kernel.dk): the dio's {@code is_sync}, {@code multi_bio}
   * and {@code should_dirty} bit fields, each a read-modify-write of one byte, become one {@code
   * flags} word written whole. Priced by what its author measured.
   */
  BLKDEV_DIO_FLAGS("blkdev-dio-flags", Pricing.DATA),
  /**
   * "block: improve layout of struct request" (Jens Axboe, 5.16; lore
   * 20211017013748.76461-9-axboe@kernel.dk): the request's initial state up top and its queued
   * state after it, so that setting a request up and starting it touch fewer cache lines. Priced by
   * what its author measured.
   */
  RQ_LAYOUT("rq-layout");

  /** How a built-in patch is priced: by the model's code, or by its data in reference.conf. */
  enum Pricing {
    CODE,
    DATA
  }

  private final String key;
  private final Pricing pricing;

  Patch(String key) {
    this(key, Pricing.CODE);
  }

  Patch(String key, Pricing pricing) {
    this.key = key;
    this.pricing = pricing;
  }

  /**
   * Whether its effect is only a price, given as data ({@code blksim.patches.NAME} of {@code
   * reference.conf}) and applied by the same code as a user's patch.
   */
  public boolean pricedByData() {
    return pricing == Pricing.DATA;
  }

  /** The name used on the command line and in HOCON. */
  public String key() {
    return key;
  }

  /**
   * The patch named {@code key}.
   *
   * @throws ConfigError naming the accepted names
   */
  public static Patch of(String key) {
    Patch p = find(key);
    if (p == null) {
      throw new ConfigError("unknown patch " + OneLine.of(key) + ": accepted " + names());
    }
    return p;
  }

  /** The built-in patch named {@code key}, or null. */
  public static Patch find(String key) {
    for (Patch p : values()) {
      if (p.key.equals(key)) {
        return p;
      }
    }
    return null;
  }

  public static String names() {
    return Arrays.stream(values()).map(Patch::key).collect(Collectors.joining(", "));
  }
}

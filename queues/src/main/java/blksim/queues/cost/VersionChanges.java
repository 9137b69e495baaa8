package blksim.queues.cost;

import blksim.config.KernelSettings;
import blksim.config.Patch;

/**
 * What the kernel versions' changes take off the shape's rows, each change a toggle ({@link Patch})
 * priced from the CPU's facts, or from a profile its author posted (docs/kernel.md section 8).
 * {@link PathCosts} calls it.
 */
final class VersionChanges {
  private VersionChanges() {}

  /**
   * The per-request work that seven of 5.16's block changes removed, each priced by what its commit
   * says it removes (docs/kernel.md section 8): a call, a load of {@code q->elevator}, the stores
   * of an initialisation, a counter's increment (a load and a store of a hot line).
   */
  static void priceEarly(PathCosts c, KernelSettings k, double call, double l1, double store) {
    double counter = l1 + store;
    if (k.has(Patch.BIO_ADVANCE_SKIP)) {
      c.reduce(KernelFn.BLK_MQ_END_REQUEST, call);
    }
    if (k.has(Patch.UPDATE_REQUEST_IN_BLK_MQ)) {
      c.reduce(KernelFn.BLK_MQ_END_REQUEST, call);
    }
    if (k.has(Patch.STATUS_ERRNO_SKIP)) {
      c.reduce(KernelFn.BLK_MQ_END_REQUEST, call);
    }
    if (k.has(Patch.RQF_ELV)) {
      // blk_mq_rq_ctx_init, blk_mq_submit_bio, the issue and blk_mq_free_request
      c.reduce(KernelFn.BLK_MQ_RQ_CTX_INIT, l1);
      c.reduce(KernelFn.BLK_MQ_SUBMIT_BIO, l1);
      c.reduce(KernelFn.BLK_MQ_FLUSH_PLUG_LIST, l1);
      c.reduce(KernelFn.BLK_MQ_FREE_REQUEST, l1);
    }
    if (k.has(Patch.RQ_CTX_INIT_NO_ELV)) {
      // INIT_HLIST_NODE(&rq->hash) and RB_CLEAR_NODE(&rq->rb_node), and q/ctx/hctx loaded again
      c.reduce(KernelFn.BLK_MQ_RQ_CTX_INIT, 3 * store + 2 * l1);
    }
    if (k.has(Patch.REMOVE_CTX_COUNTERS)) {
      // ctx->rq_dispatched in blk_mq_rq_ctx_init, ctx->rq_completed in blk_mq_free_request
      c.reduce(KernelFn.BLK_MQ_RQ_CTX_INIT, counter);
      c.reduce(KernelFn.BLK_MQ_FREE_REQUEST, counter);
    }
    if (k.has(Patch.BDEV_CACHED_QUEUE)) {
      // bdev->bd_queue for bdev->bd_disk->queue: one L1 load less at each bdev_get_queue
      c.reduce(KernelFn.SUBMIT_BIO_NOACCT, l1);
      c.reduce(KernelFn.BIO_QUEUE_ENTER, l1);
      c.reduce(KernelFn.BLK_MQ_SUBMIT_BIO, l1);
    }
    if (k.has(Patch.REMOVE_HCTX_COUNTERS)) {
      // hctx->queued in blk_mq_rq_ctx_init
      c.reduce(KernelFn.BLK_MQ_RQ_CTX_INIT, counter);
      c.reduce(KernelFn.BLK_MQ_FLUSH_PLUG_LIST, counter);
      c.reduce(KernelFn.IO_DO_IOPOLL, 3 * counter);
    }
  }

  /**
   * What "block: use flags instead of bit fields for blkdev_dio" saved: 7650K to 7750K IOPS, Jens
   * Axboe's 5950X and Optane peak run (docs/costs.md 1.1 and 2.5), 1.69 ns a read.
   */
  static final double DIO_FLAGS_NS = 1e9 / 7.65e6 - 1e9 / 7.75e6;

  /**
   * What "block: improve layout of struct request" saved: 7750K to 7900K IOPS ("about 1.5%"), the
   * same box (docs/costs.md 1.1), 2.45 ns a request.
   */
  static final double RQ_LAYOUT_NS = 1e9 / 7.75e6 - 1e9 / 7.90e6;

  /**
   * The two 5.16 changes whose authors gave only what they measured, no mechanism that the CPU's
   * facts price: the nanoseconds of that box, taken as the reference box's (begunkov-2021's facts
   * are those of a ~4 GHz core like it) and times the profile's scale like the shape's. The request
   * layout's lines are those that setting a request up and starting it write, so its saving comes
   * off those two functions, in proportion to what they cost.
   */
  static void priceMeasured(PathCosts c, KernelSettings k, double scale) {
    if (k.has(Patch.BLKDEV_DIO_FLAGS)) {
      c.reduce(KernelFn.BLKDEV_DIRECT_IO, DIO_FLAGS_NS * scale);
    }
    if (k.has(Patch.RQ_LAYOUT)) {
      double init = c.ns(KernelFn.BLK_MQ_RQ_CTX_INIT);
      double start = c.ns(KernelFn.BLK_MQ_START_REQUEST);
      double cut = Math.min(RQ_LAYOUT_NS * scale, init + start);
      c.reduce(KernelFn.BLK_MQ_RQ_CTX_INIT, cut * init / (init + start));
      c.reduce(KernelFn.BLK_MQ_START_REQUEST, cut * start / (init + start));
    }
  }

  /** The references io-uring-rsrc-ref-cache takes at a time ({@code IO_RSRC_REF_BATCH}). */
  static final int RSRC_REFILL = 100;

  /**
   * The io_uring, driver-tag, BIO_TRACKED and bvec changes of 5.16, priced after the rows are
   * derived.
   */
  static void priceLater(
      PathCosts c,
      KernelSettings k,
      PathCosts.Knobs knobs,
      double call,
      double l1,
      double store,
      double percpu) {
    // The rsrc node's reference (io_req_set_rsrc_node), which a request with a registered file or
    // buffer takes at submission and drops at its free: a percpu_ref_get and a percpu_ref_put. The
    // shape, measured with -F1 -B1, has them in rows 3 and 18; a request with neither takes none.
    // Where the request takes its own, each one's RCU section is shown as the functions it calls.
    double ref = c.percpuRefNs(l1, percpu);
    boolean takes = knobs.fixedFiles() || knobs.fixedBuffers();
    boolean sections = takes && !k.has(Patch.RSRC_REF_CACHE);
    c.set(KernelFn.RCU_READ_LOCK_RSRC, sections ? c.ns(KernelFn.RCU_READ_LOCK) : 0);
    c.set(KernelFn.RCU_READ_UNLOCK_RSRC, sections ? c.ns(KernelFn.RCU_READ_UNLOCK) : 0);
    if (!takes) {
      c.reduce(KernelFn.IO_SUBMIT_SQES, ref);
      c.reduce(KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS, ref);
    } else {
      if (sections) {
        c.reduce(KernelFn.IO_SUBMIT_SQES, c.rcuSectionNs());
        c.reduce(KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS, c.rcuSectionNs());
      } else {
        // the get becomes ctx->rsrc_cached_refs-- and its test (a load, a store), with a
        // percpu_ref_get_many at each refill of 100; the put, io_req_put_rsrc_locked, compares
        // the reference with ctx->rsrc_node's (a load) and counts it back (a load, a store)
        c.reduce(KernelFn.IO_SUBMIT_SQES, ref - (l1 + store) - ref / RSRC_REFILL);
        c.reduce(KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS, ref - (2 * l1 + store));
      }
      if (k.has(Patch.RSRC_NODE_CTX)) {
        // no reload of req->ctx at the first io_req_set_rsrc_node: io_file_get_fixed's under -F1
        // (row 3), io_prep_rw's for a fixed buffer otherwise
        c.reduce(knobs.fixedFiles() ? KernelFn.IO_SUBMIT_SQES : KernelFn.IO_PREP_RW, l1);
      }
    }
    // bio-iov-bvec-set: Pavel Begunkov's profile at ~4.25 MIOPS (docs/costs.md 2.7) has
    // bio_iov_iter_get_pages 1.75 % and iov_iter_advance 0.90 % before, the bvec set alone 0.91 %
    // after: row 7 (the two together) times 0.91 / 2.65.
    boolean bvecSet = k.has(Patch.BIO_IOV_BVEC_SET) && knobs.fixedBuffers();
    double row7 = c.ns(KernelFn.BIO_IOV_ITER_GET_PAGES) + c.ns(KernelFn.IOV_ITER_ADVANCE);
    c.set(KernelFn.BIO_IOV_BVEC_SET, bvecSet ? row7 * 0.91 / ShapeSplits.ROW7_PCT : 0);
    if (bvecSet) {
      c.set(KernelFn.BIO_IOV_ITER_GET_PAGES, 0);
      c.set(KernelFn.IOV_ITER_ADVANCE, 0);
    }
    if (k.has(Patch.DRIVER_TAG_INLINE)) {
      c.reduce(KernelFn.BLK_MQ_FLUSH_PLUG_LIST, call);
    }
    if (k.has(Patch.BIO_TRACKED_RQ_QOS)) {
      // rq_qos_done_bio(bio->bi_bdev->bd_disk->queue): three dependent loads of hot lines
      c.reduce(KernelFn.BLKDEV_BIO_END_IO_ASYNC, 3 * l1);
    }
  }
}

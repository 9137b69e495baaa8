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
   * The per-request work that 5.16's debugfs counters of the hardware queue cost, priced by what
   * its commit removes: a counter's increment (a load and a store of a hot line). It stays code:
   * its poll counters are priced on a poll that finds a request ({@code io_do_iopoll}) and not on
   * one that finds none, a variant of the same function that a change described as data, by the
   * function's name, would change too.
   */
  static void priceEarly(PathCosts c, KernelSettings k, double l1, double store) {
    double counter = l1 + store;
    if (k.has(Patch.REMOVE_HCTX_COUNTERS)) {
      // hctx->queued in blk_mq_rq_ctx_init
      c.reduce(KernelFn.BLK_MQ_RQ_CTX_INIT, counter);
      c.reduce(KernelFn.BLK_MQ_FLUSH_PLUG_LIST, counter);
      c.reduce(KernelFn.IO_DO_IOPOLL, 3 * counter);
    }
  }

  /**
   * What "block: improve layout of struct request" saved: 7750K to 7900K IOPS ("about 1.5%"), the
   * same box (docs/costs.md 1.1), 2.45 ns a request.
   */
  static final double RQ_LAYOUT_NS = 1e9 / 7.75e6 - 1e9 / 7.90e6;

  /**
   * The request layout's change, whose author gave only what it measured: the nanoseconds of that
   * box, taken as the reference box's (begunkov-2021's facts are those of a ~4 GHz core like it)
   * and times the profile's scale like the shape's. Its lines are those that setting a request up
   * and starting it write, so its saving comes off those two functions, in proportion to what they
   * cost once everything else, the patches described as data too, has priced them: code, since a
   * proportion is no fixed work. (blkdev-dio-flags, priced by its author's measurement as well,
   * comes off one function: data, a plain {@code ns}.)
   */
  static void priceMeasured(PathCosts c, KernelSettings k, double scale) {
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

  /** The io_uring and bvec changes of 5.16, priced after the rows are derived. */
  static void priceLater(
      PathCosts c,
      KernelSettings k,
      PathCosts.Knobs knobs,
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
  }
}

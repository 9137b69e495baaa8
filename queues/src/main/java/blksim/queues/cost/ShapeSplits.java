package blksim.queues.cost;

import blksim.config.CpuProfile;
import blksim.config.KernelSettings;
import blksim.config.Patch;

/**
 * The shape's rows (docs/costs.md section 6) as the functions {@code perf report} shows: row 19's
 * long tail spread over the rows, and the rows that hold several functions split into them. Each
 * split keeps its row's sum. {@link PathCosts} calls it before the versions' changes.
 */
final class ShapeSplits {
  private ShapeSplits() {}

  /**
   * The per-I/O kernel rows of the shape, rows 3 to 18, which carry row 19's tail. Row 1 (user
   * space) and row 2 (per call) do not.
   */
  static final KernelFn[] TAIL_ROWS = {
    KernelFn.IO_SUBMIT_SQES,
    KernelFn.IO_READ,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO,
    KernelFn.BIO_ALLOC_KIOCB,
    KernelFn.BIO_IOV_ITER_GET_PAGES,
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.BLK_MQ_FLUSH_PLUG_LIST,
    KernelFn.NULL_QUEUE_RQ,
    KernelFn.NULL_POLL,
    KernelFn.BLKDEV_BIO_END_IO_ASYNC,
    KernelFn.BLK_MQ_END_REQUEST,
    KernelFn.BIO_PUT,
    KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS
  };

  /**
   * The slab path's steps, which replace {@code bio_alloc_kiocb} and {@code bio_put} without the
   * per-CPU bio cache: entries of Jens Axboe's profile of ~330 ns (docs/costs.md 2.1), anchored as
   * the rows are, so they carry the tail's factor too.
   */
  static final KernelFn[] SLAB_STEPS = {
    KernelFn.BIO_ALLOC_BIOSET, KernelFn.KMEM_CACHE_ALLOC, KernelFn.BIO_FREE
  };

  /**
   * Row 4's functions in Jens Axboe's 13 MIOPS profile (docs/costs.md 2.6), percent of cycles:
   * {@code io_issue_sqe} 3.02, {@code io_prep_rw} 2.60, {@code __io_import_iovec} 4.67; {@code
   * io_read} is not among its top 15, so at most their last, 2.59, and taken at that.
   */
  static final double ISSUE_PCT = 3.02;

  static final double PREP_PCT = 2.60;
  static final double IMPORT_PCT = 4.67;
  static final double READ_PCT = 2.59;
  static final double ROW4_PCT = ISSUE_PCT + PREP_PCT + IMPORT_PCT + READ_PCT;

  /** Row 7's functions in Pavel Begunkov's profile at ~4.25 MIOPS (docs/costs.md 2.7), percent. */
  static final double ADVANCE_PCT = 0.90;

  static final double ROW7_PCT = 1.75 + ADVANCE_PCT;

  /**
   * {@code blk_mq_rq_ctx_init}'s part of row 11 (20 ns): it "takes ~4.7% on a peak performance run"
   * (Jens Axboe, lore 20211017013748.76461-12-axboe@kernel.dk, docs/costs.md 2.5), of a ~149 ns I/O
   * at 6.7 MIOPS on a box as fast as this one: 7.0 ns.
   */
  static final double RQ_CTX_INIT_SHARE_OF_ROW11 = 0.047 * 149 / 20;

  /**
   * Spreads the tail, then splits the rows.
   *
   * @param call a call and return, ns
   * @param l1 an L1 load, ns
   * @param atomic a locked instruction, ns
   * @param store a store, ns
   */
  static void apply(
      PathCosts c,
      CpuProfile p,
      KernelSettings k,
      double call,
      double l1,
      double atomic,
      double store) {
    spreadTail(c, p);
    double io = c.ns(KernelFn.IO_READ);
    c.set(KernelFn.IO_ISSUE_SQE, io * ISSUE_PCT / ROW4_PCT);
    c.set(KernelFn.IO_PREP_RW, io * PREP_PCT / ROW4_PCT);
    c.set(KernelFn.IO_IMPORT_IOVEC, io * IMPORT_PCT / ROW4_PCT);
    c.set(KernelFn.IO_READ, io * READ_PCT / ROW4_PCT);
    // Row 7: iov_iter_advance, 0.90 of bio_iov_iter_get_pages' 1.75 + 0.90 % in Pavel Begunkov's
    // profile before bio-iov-bvec-set (docs/costs.md 2.7)
    c.split(
        KernelFn.BIO_IOV_ITER_GET_PAGES,
        KernelFn.IOV_ITER_ADVANCE,
        c.ns(KernelFn.BIO_IOV_ITER_GET_PAGES) * ADVANCE_PCT / ROW7_PCT);
    // Row 11: the request's set-up, then __blk_mq_alloc_requests gives its tag, blk_mq_get_tag
    // calling the out-of-line sbitmap_get for one test_and_set_bit_lock (a call, an atomic; Jens
    // Axboe put the sbitmap at ~3 % of a ~140 ns peak run, docs/costs.md 2.5).
    c.split(
        KernelFn.BLK_MQ_ALLOC_REQUESTS,
        KernelFn.BLK_MQ_RQ_CTX_INIT,
        c.ns(KernelFn.BLK_MQ_ALLOC_REQUESTS) * RQ_CTX_INIT_SHARE_OF_ROW11);
    c.split(KernelFn.BLK_MQ_ALLOC_REQUESTS, KernelFn.SBITMAP_QUEUE_GET, call + atomic);
    // Row 9: bio_queue_enter gives the drop of its queue reference, blk_queue_exit, a third: the
    // enter runs two RCU read-side sections (blk_try_enter_queue's and percpu_ref_tryget_live's),
    // the exit one (percpu_ref_put). Each section's calls are the profile's __rcu_read_lock and
    // __rcu_read_unlock; what is left is the functions' own.
    c.split(KernelFn.BIO_QUEUE_ENTER, KernelFn.BLK_QUEUE_EXIT, c.ns(KernelFn.BIO_QUEUE_ENTER) / 3);
    double lock = p.scaledNs("__rcu_read_lock");
    double unlock = p.scaledNs("__rcu_read_unlock");
    c.set(KernelFn.RCU_READ_LOCK, lock);
    c.set(KernelFn.RCU_READ_UNLOCK, unlock);
    boolean once = k.has(Patch.QUEUE_ENTER_RCU_ONCE);
    c.set(KernelFn.RCU_READ_LOCK_NESTED, once ? 0 : lock);
    c.set(KernelFn.RCU_READ_UNLOCK_NESTED, once ? 0 : unlock);
    c.reduce(KernelFn.BIO_QUEUE_ENTER, 2 * (lock + unlock));
    c.reduce(KernelFn.BLK_QUEUE_EXIT, lock + unlock);
    // Row 12: blk_mq_start_request, per request: the queue and its flags, the request's timeout
    // and jiffies (three loads); rq_flags, the deadline and the state (three stores). Each
    // request's issue runs in hctx_lock's RCU section: the fourth section a read, with row 9's
    // three, that Pavel Begunkov's profile holds (6.25 % at ~4.25 MIOPS is 4.3 of them).
    c.split(
        KernelFn.BLK_MQ_FLUSH_PLUG_LIST, KernelFn.BLK_MQ_START_REQUEST, call + 3 * l1 + 3 * store);
    c.set(KernelFn.RCU_READ_LOCK_HCTX, lock);
    c.set(KernelFn.RCU_READ_UNLOCK_HCTX, unlock);
    c.reduce(KernelFn.BLK_MQ_FLUSH_PLUG_LIST, lock + unlock);
    // Row 16: blk_mq_end_request gives the request's free, blk_mq_free_request (its call, the
    // q->elevator load and the software queue's counter that 5.16 removed), and the tag's return,
    // sbitmap_queue_clear (a call, the atomic clear, the ws_active load).
    c.split(KernelFn.BLK_MQ_END_REQUEST, KernelFn.BLK_MQ_FREE_REQUEST, call + 2 * l1 + store);
    c.split(KernelFn.BLK_MQ_END_REQUEST, KernelFn.SBITMAP_QUEUE_CLEAR, call + atomic + l1);
  }

  /**
   * A step of {@code p}'s shape as the read's path prices it: scaled, and times the tail's factor
   * {@code m} if it is one of {@link #TAIL_ROWS} or {@link #SLAB_STEPS}.
   */
  static double shapeNs(CpuProfile p, String step, double m) {
    for (KernelFn[] carried : new KernelFn[][] {TAIL_ROWS, SLAB_STEPS}) {
      for (KernelFn fn : carried) {
        if (fn.symbol().equals(step)) {
          return p.scaledNs(step) * m;
        }
      }
    }
    return p.scaledNs(step);
  }

  /**
   * Row 19 ({@code unattributed}) over {@link #TAIL_ROWS}, in proportion to their steps: each row's
   * cache and branch misses, and the small helpers it calls, in its own functions. The factor this
   * gives the rows multiplies {@link #SLAB_STEPS} as well.
   */
  private static void spreadTail(PathCosts c, CpuProfile p) {
    double rows = 0;
    for (KernelFn fn : TAIL_ROWS) {
      rows += c.ns(fn);
    }
    if (rows == 0) {
      return;
    }
    double m = 1 + p.scaledNs("unattributed") / rows;
    c.tailFactor(m);
    for (KernelFn fn : TAIL_ROWS) {
      c.set(fn, c.ns(fn) * m);
    }
    for (KernelFn fn : SLAB_STEPS) {
      c.set(fn, c.ns(fn) * m);
    }
  }
}

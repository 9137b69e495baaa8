package blksim.queues.cost;

import blksim.config.ConfigError;
import blksim.config.CpuProfile;
import blksim.config.KernelSettings;
import blksim.config.MicroArch;
import blksim.config.Patch;

/**
 * The CPU cost of every function of the modelled path for one CPU profile, kernel and set of knobs,
 * in picoseconds, with what the patches described as data change and add ({@link PatchPrices}).
 *
 * <p>Shape steps are the profile's nanoseconds times its scale. The rest is derived from the CPU's
 * facts, from what each variant of the code does, read off the seeds' diffs:
 *
 * <ul>
 *   <li>bdev lookups: {@code blkdev_read_iter} calls the out-of-line {@code bdev_file_inode} and
 *       loads {@code f_mapping}, {@code host}; {@code __blkdev_direct_IO} calls {@code
 *       bdev_file_inode} and the out-of-line {@code I_BDEV} and loads two pointers; {@code
 *       blkdev_iopoll} (per poll call) calls {@code I_BDEV} after two loads. These objects are
 *       touched once per I/O, 32 I/Os apart, so each load is taken as an L2 hit. What seed 000's
 *       1/3 and 2/3 take away is their data ({@code blksim.patches}, {@link PatchPrices}).
 *   <li>{@code __blk_mq_end_request} without statistics (seed 000 3/3): the baseline still loads
 *       {@code q->elevator} and calls the out-of-line {@code blk_account_io_done}, which returns at
 *       once; the patch skips both. With iostats on, both variants do the accounting.
 *   <li>iostats: {@code ktime_get_ns} at request start and end, {@code update_io_ticks} (one L2
 *       load) and a few per-CPU adds (4 cycles) in each of {@code blk_account_io_start/done}.
 *   <li>{@code bio_init}: 20 stores field by field (seed 003's {@code rep stosq} of 16 qwords is
 *       its data).
 *   <li>{@code -F0}: {@code fget} and {@code fput}, one atomic each. {@code -B0}, by the pages of
 *       the buffer (page-aligned: block size / 4096, rounded up): {@code get_user_pages_fast} walks
 *       four page-table levels once (L2 loads), then pins each page (an atomic, a per-CPU node
 *       counter add, its PTE an L1 load after the first) and {@code bio_set_pages_dirty} tests its
 *       dirty bit (L1); at completion {@code bio_check_pages_dirty} tests it again and {@code
 *       bio_release_pages} unpins it (an atomic, a counter), both in {@code bio_release_pages}.
 *       More pages than the bio's inline vecs cost a bvec array from a biovec slab in {@code
 *       bio_alloc_bioset} and back in {@code bio_free}, each priced as a {@code kmem_cache_alloc}.
 *   <li>The IRQ list of the bio cache (6.2, patch bio-cache-irq-list): a put to it and a splice of
 *       it each save and restore interrupts.
 *   <li>Timer interrupts (null_blk irqmode=2): entry and exit as a syscall's, {@code
 *       hrtimer_interrupt} (a clock read, two loads), {@code null_cmd_timer_expired} (a call, a
 *       load) per timer, and {@code try_to_wake_up} of a sleeping submitter (three atomics: the
 *       task's pi_lock, the runqueue lock, the state; two loads).
 *   <li>Interrupt-driven completion: {@code blk_mq_complete_request} (two calls, one load), {@code
 *       io_req_task_work_add} (a spinlock with interrupts saved), {@code tctx_task_work} (a call
 *       per request; a locked splice with interrupts saved per run).
 *   <li>Tag exhaustion and io-wq (5.16): {@code blk_mq_get_tag} that finds no tag has searched
 *       every word of the sbitmap (an L2 load each, at least four words); {@code
 *       bio_wouldblock_error} is a call into {@code bio_endio}; {@code io_setup_async_rw} allocates
 *       the request's async data (a kmalloc, and its kfree later, each priced as the profile's
 *       {@code kmem_cache_alloc}) and copies the iterator (two lines); {@code io_queue_async_work}
 *       takes the wqe lock and adds the work (two atomics, two loads); the worker's {@code
 *       io_worker_handle_work} and {@code io_wq_submit_work} take the wqe lock and a request
 *       reference (three atomics, two loads); {@code io_iopoll_req_issued} from the worker takes
 *       and drops {@code uring_lock} (two atomics) around a list add (a load).
 *   <li>Device mapper: {@link DmCosts}.
 * </ul>
 */
public final class PathCosts {
  /** A bio_init stores this many fields one by one (Bart Van Assche's disassembly, seed 003). */
  static final int BIO_INIT_FIELD_STORES = 20;

  /** Words an sbitmap spreads over when it can ({@code sbitmap_calculate_shift}). */
  static final int SBITMAP_MIN_WORDS = 4;

  /** Per-CPU counter updates of blk_account_io_start/done, cycles. */
  static final double PART_STAT_CYCLES = 4;

  /**
   * Each function's price while it is derived, ns, by {@link KernelFn#ordinal()}; rounded to
   * picoseconds once, into {@link #steps}, when every price is known.
   */
  private final double[] prices = new double[KernelFn.values().length];

  private final boolean[] priced = new boolean[KernelFn.values().length];

  private final CostStep[] steps = new CostStep[KernelFn.values().length];

  /** The functions patches add, by their callers' {@link KernelFn#ordinal()}; null where none. */
  private final PatchPrices.Rider[][] riders;

  /** What row 19's tail multiplies the per-I/O kernel rows by ({@link ShapeSplits}). */
  private double tailFactor = 1;

  private final CostStep tctxTaskWorkPerRun;
  private final long lineTransferPs;
  private final long shortLockHoldPs;
  private final long slabListHoldPs;
  private final CallVariation.Spec variation;

  private PathCosts(CpuProfile p, KernelSettings k, Knobs knobs, CallVariation.Spec variation) {
    this.variation = variation;
    MicroArch f = p.facts();
    double l2 = f.ns(f.l2LoadCycles());
    double call = f.ns(f.callCycles());
    double atomic = f.ns(f.atomicCycles());
    double irq = f.ns(f.irqSaveRestoreCycles());
    double l1 = f.ns(f.l1LoadCycles());
    boolean fastPath = k.has(Patch.END_REQUEST_FAST_PATH);
    boolean iostats = k.iostats();

    for (KernelFn fn : KernelFn.values()) {
      if (p.stepsNs().containsKey(fn.symbol())) {
        set(fn, p.scaledNs(fn.symbol()));
      }
    }
    ShapeSplits.apply(this, p, k, call, l1, atomic, f.ns(f.storeCycles()));
    VersionChanges.priceEarly(this, k, l1, f.ns(f.storeCycles()));
    // plug-batch-alloc: one call for the plug's tags, one cmpxchg loop on the word, and
    // percpu_ref_get_many of the queue references (a per-CPU add), whether the batch fits or not.
    set(KernelFn.SBITMAP_QUEUE_GET_BATCH, call + atomic + f.ns(PART_STAT_CYCLES));
    // null-poll-batch: each request's part of blk_mq_end_request but its free; per flush of a
    // hardware queue's tags a call and sbitmap_queue_wake_up's load, and an atomic andnot per word.
    set(KernelFn.BLK_MQ_END_REQUEST_BATCH, ns(KernelFn.BLK_MQ_END_REQUEST));
    set(KernelFn.BLK_MQ_FLUSH_TAG_BATCH, call + l1);
    set(KernelFn.SBITMAP_QUEUE_CLEAR_BATCH, atomic);
    // Merges (queue.nomerges 0 or 1), none of them in the shape (measured with nomerges = 2):
    // blk_attempt_plug_merge finds the plug and its last request and checks it (blk_rq_merge_ok's
    // flags and disk, blk_try_merge's sector: a call, three loads); bio_attempt_back_merge counts
    // segments and sectors (ll_back_merge_fn: two loads) and chains the bio (biotail and its
    // bi_next, __data_len, the merged flags: four stores), with iostats a merge counter;
    // blk_mq_sched_bio_merge finds the software queue's list empty (a call, two loads); each bio
    // behind a request's first ends in blk_update_request (req_bio_endio: a call, two loads, a
    // store).
    double store1 = f.ns(f.storeCycles());
    set(KernelFn.BLK_ATTEMPT_PLUG_MERGE, call + 3 * l1);
    set(
        KernelFn.BIO_ATTEMPT_BACK_MERGE,
        call + 2 * l1 + 4 * store1 + (iostats ? l1 + f.ns(PART_STAT_CYCLES) : 0));
    set(KernelFn.BLK_MQ_SCHED_BIO_MERGE, call + 2 * l1);
    set(KernelFn.BLK_UPDATE_REQUEST, call + 2 * l1 + store1);
    VersionChanges.priceLater(this, k, knobs, l1, f.ns(f.storeCycles()), f.ns(PART_STAT_CYCLES));
    // The IOPOLL ring's completions do the work of __io_submit_flush_completions (row 18).
    set(KernelFn.IO_IOPOLL_COMPLETE, ns(KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS));
    set(KernelFn.SYSCALL, f.syscallNs());
    set(KernelFn.FDGET_FDPUT, knobs.registeredRing() ? 0 : p.scaledNs("fdget_fdput"));
    set(KernelFn.FGET, knobs.fixedFiles() ? 0 : atomic);
    set(KernelFn.FPUT, knobs.fixedFiles() ? 0 : atomic);
    // The bdev lookups: blkdev_read_iter calls the out-of-line bdev_file_inode and loads f_mapping
    // and host; __blkdev_direct_IO calls bdev_file_inode and the out-of-line I_BDEV and loads two
    // pointers; blkdev_iopoll, per poll call, calls I_BDEV after two loads (seed 000 1/3 and 2/3
    // take some of it away, patches bdev-cache-in-file and bdev-inode-inline). These objects are
    // touched once per I/O, 32 I/Os apart: L2 hits.
    add(KernelFn.BLKDEV_READ_ITER, call + 2 * l2);
    add(KernelFn.BLKDEV_DIRECT_IO, 2 * call + 2 * l2);
    set(KernelFn.BLKDEV_IOPOLL, call + 2 * l2);
    set(KernelFn.IO_DO_IOPOLL_EMPTY, p.scaledNs("io_do_iopoll"));
    set(KernelFn.END_REQUEST_STATS, iostats || !fastPath ? l2 : 0);
    set(
        KernelFn.BLK_ACCOUNT_IO_DONE,
        iostats ? call + l2 + f.ns(PART_STAT_CYCLES) : fastPath ? 0 : call);
    set(KernelFn.BLK_ACCOUNT_IO_START, iostats ? l2 + f.ns(PART_STAT_CYCLES) : 0);
    set(KernelFn.KTIME_GET_NS, iostats ? f.ktimeGetNs() : 0);
    set(KernelFn.BIO_INIT, f.ns(BIO_INIT_FIELD_STORES * f.storeCycles()));
    // -B0, per I/O: get_user_pages_fast walks the four page-table levels once (L2 loads); each page
    // then costs its PTE (the next in the same table: L1), its FOLL_PIN reference (an atomic), its
    // NR_FOLL_PIN_ACQUIRED node counter (a per-CPU add) and, for a read, bio_set_pages_dirty's test
    // of its dirty bit (L1: gup just read the page). At completion bio_check_pages_dirty tests each
    // page again (L1) and bio_release_pages unpins it (an atomic, NR_FOLL_PIN_RELEASED).
    int pages = knobs.fixedBuffers() ? 0 : knobs.pagesPerIo();
    double pinStat = f.ns(PART_STAT_CYCLES);
    set(
        KernelFn.GET_USER_PAGES_FAST,
        pages == 0 ? 0 : 4 * l2 + pages * (atomic + pinStat) + (pages - 1) * l1 + pages * l1);
    set(KernelFn.BIO_RELEASE_PAGES, pages == 0 ? 0 : call + pages * (atomic + pinStat + l1));
    set(KernelFn.BLK_MQ_COMPLETE_REQUEST, 2 * call + l2);
    set(KernelFn.IO_REQ_TASK_WORK_ADD, atomic + irq);
    set(KernelFn.TCTX_TASK_WORK, call);
    set(KernelFn.BIO_PUT_IRQ_LIST, ns(KernelFn.BIO_PUT) + irq);
    set(KernelFn.BIO_ALLOC_IRQ_CACHE_SPLICE, irq);
    set(KernelFn.IRQ_ENTRY, f.syscallNs());
    set(KernelFn.HRTIMER_INTERRUPT, f.ktimeGetNs() + 2 * l2);
    set(KernelFn.TICK_SCHED_TIMER, f.tickNs());
    set(KernelFn.RUN_REBALANCE_DOMAINS, f.schedSoftirqNs());
    set(KernelFn.VMSTAT_UPDATE, f.vmstatKworkerNs());
    set(KernelFn.NULL_TIMER_FN, call + l2);
    set(KernelFn.TRY_TO_WAKE_UP, 3 * atomic + 2 * l2);
    set(KernelFn.BLK_MQ_GET_TAG_FAILED, call + SBITMAP_MIN_WORDS * l2);
    set(KernelFn.BIO_WOULDBLOCK_ERROR, call);
    // sbitmap_prepare_to_wait: the wait queue's spinlock with interrupts saved, the entry added,
    // ws_active counted (two atomics, the irq toggle, a load); finish_wait after the wake is in the
    // woken path's tag get.
    set(KernelFn.SBITMAP_PREPARE_TO_WAIT, call + 2 * atomic + irq + l1);
    set(KernelFn.IO_SETUP_ASYNC_RW, call + 2 * l2 + 2 * ns(KernelFn.KMEM_CACHE_ALLOC));
    if (knobs.bvecAlloc()) {
      // more pages than BIO_INLINE_VECS: bio_alloc_bioset takes a bvec array from a biovec slab
      // (bvec_alloc), and bio_free gives it back (bvec_free), each priced as a kmem_cache_alloc
      double slab = ns(KernelFn.KMEM_CACHE_ALLOC);
      add(KernelFn.BIO_ALLOC_BIOSET, slab);
      add(KernelFn.BIO_FREE, slab);
    }
    set(KernelFn.IO_QUEUE_ASYNC_WORK, call + 2 * atomic + 2 * l2);
    set(KernelFn.IO_WQ_SUBMIT_WORK, call + 3 * atomic + 2 * l2);
    set(KernelFn.COND_RESCHED, call);
    set(KernelFn.IO_IOPOLL_REQ_ISSUED, 2 * atomic + l2);
    double store = f.ns(f.storeCycles());
    double percpu = f.ns(PART_STAT_CYCLES);
    DmCosts.price(this, f, call, l1, l2, atomic, irq, store, percpu);
    set(KernelFn.FIO_USER, p.scaledNs("fio_user_space"));
    set(KernelFn.BLK_MQ_REQUEUE_REQUEST, 2 * call + 3 * atomic + irq + l2);
    set(KernelFn.BLK_MQ_BYPASS_INSERT, call + 3 * atomic + l2);
    set(KernelFn.BLK_MQ_REQUEUE_WORK, call + atomic + l2);
    set(KernelFn.BLK_MQ_RUN_WORK, call + atomic + l2);
    set(KernelFn.NULL_TIMEOUT_RQ, 3 * call + atomic + 2 * l2);
    SoftirqCosts.price(this, call, l1, atomic, irq, store);
    lineTransferPs = ps(f.cachelineTransferNs());
    shortLockHoldPs = ps(atomic);
    slabListHoldPs = ps(2 * atomic + 4 * l2);
    tctxTaskWorkPerRun = new CostStep(KernelFn.TCTX_TASK_WORK, ps(2 * atomic + irq));
    NopCosts.price(this, p, knobs.nop(), l1, f.ns(PART_STAT_CYCLES));
    SyncCosts.price(this, p, k, call, l1, atomic, f.ns(f.storeCycles()));
    AioCosts.price(this, p, call, l1, atomic, irq, f.ns(f.storeCycles()), f.ns(PART_STAT_CYCLES));
    SchedCosts.price(
        this, call, l1, atomic, f.ns(f.storeCycles()), f.ns(PART_STAT_CYCLES), k.nomerges());
    for (KernelFn fn : KernelFn.values()) {
      if (!priced[fn.ordinal()]) {
        throw new IllegalStateException("no cost for " + fn.symbol() + " in profile " + p.name());
      }
    }
    PatchPrices patches = new PatchPrices();
    patches.apply(this, p, k);
    VersionChanges.priceMeasured(this, k, p.scale());
    long[] ps = new long[steps.length];
    for (KernelFn fn : KernelFn.values()) {
      ps[fn.ordinal()] = ps(prices[fn.ordinal()]);
      steps[fn.ordinal()] = new CostStep(fn, ps[fn.ordinal()]);
    }
    riders = patches.riders(ps, PathCosts::ps);
    if (step(KernelFn.SYSCALL).ps()
            + step(KernelFn.IO_URING_ENTER).ps()
            + step(KernelFn.FDGET_FDPUT).ps()
        == 0) {
      // every turn of t/io_uring's loop makes this call: at 0 ns virtual time could not advance
      throw new ConfigError(
          "profile "
              + p.name()
              + " prices a call of io_uring_enter at 0 ns (facts.syscall-ns, steps.io_uring_enter"
              + " and, without -X1, fdget_fdput): t/io_uring's loop would not advance virtual time;"
              + " give one of them a cost");
    }
  }

  /**
   * The knobs of the run that change what the path does.
   *
   * @param registeredRing {@code -X1}
   * @param fixedFiles {@code -F1}
   * @param fixedBuffers {@code -B1}
   * @param pagesPerIo pages of user memory each I/O pins under {@code -B0}
   * @param bvecAlloc whether a bio needs more vecs than its inline ones (a bvec array from a slab)
   * @param nop {@code -N1}: the ring's requests are IORING_OP_NOPs
   */
  public record Knobs(
      boolean registeredRing,
      boolean fixedFiles,
      boolean fixedBuffers,
      int pagesPerIo,
      boolean bvecAlloc,
      boolean nop) {
    /** One page an I/O under {@code -B0}, within the bio's inline vecs; reads. */
    public Knobs(boolean registeredRing, boolean fixedFiles, boolean fixedBuffers) {
      this(registeredRing, fixedFiles, fixedBuffers, 1, false, false);
    }

    /** Reads. */
    public Knobs(
        boolean registeredRing,
        boolean fixedFiles,
        boolean fixedBuffers,
        int pagesPerIo,
        boolean bvecAlloc) {
      this(registeredRing, fixedFiles, fixedBuffers, pagesPerIo, bvecAlloc, false);
    }
  }

  public static PathCosts of(CpuProfile profile, KernelSettings kernel, Knobs knobs) {
    return new PathCosts(profile, kernel, knobs, CallVariation.Spec.NONE);
  }

  /**
   * The same, with every call of a kernel function varying around its cost by {@code variation}.
   */
  public static PathCosts of(
      CpuProfile profile, KernelSettings kernel, Knobs knobs, CallVariation.Spec variation) {
    return new PathCosts(profile, kernel, knobs, variation);
  }

  /** How calls vary around the costs here ({@link CallVariation.Spec#NONE}: they do not). */
  public CallVariation.Spec variation() {
    return variation;
  }

  /** The cost of one call of {@code fn}, without what patches add to it ({@link #riders}). */
  public CostStep step(KernelFn fn) {
    return steps[fn.ordinal()];
  }

  /**
   * The functions that patches described as data add to each call of {@code fn} ({@code adds}),
   * with their calls per call of it; null when none do.
   */
  public PatchPrices.Rider[] riders(KernelFn fn) {
    return riders[fn.ordinal()];
  }

  /** The time of one call of {@code fn} with the functions patches add to it, ps. */
  public long callPs(KernelFn fn) {
    long ps = steps[fn.ordinal()].ps();
    PatchPrices.Rider[] rs = riders[fn.ordinal()];
    if (rs != null) {
      for (PatchPrices.Rider r : rs) {
        ps += r.step().ps() * r.perCall();
      }
    }
    return ps;
  }

  /** The per-run part of {@code tctx_task_work}: splicing the task list. */
  public CostStep tctxTaskWorkPerRun() {
    return tctxTaskWorkPerRun;
  }

  /** A cache line moving to this core from another one (facts: cacheline-transfer-ns). */
  public long lineTransferPs() {
    return lineTransferPs;
  }

  /**
   * Completing another ring's request on this CPU ({@code bio_endio}, {@code ki_complete}): its
   * request, its bio and its io_kiocb, three lines another CPU wrote last, come over.
   */
  public CostStep remoteCompletion() {
    return new CostStep(Contention.LINES_REMOTE_COMPLETION, 3 * lineTransferPs);
  }

  /**
   * How long a short critical section holds its spinlock (a list add or splice): the locked
   * instruction that takes it.
   */
  public long shortLockHoldPs() {
    return shortLockHoldPs;
  }

  /**
   * SLUB's slow path under the node's list_lock: the lock's two locked operations and four list
   * pointers of other slabs (L2 loads) to move a slab between the partial and full lists.
   */
  public long slabListHoldPs() {
    return slabListHoldPs;
  }

  void tailFactor(double m) {
    tailFactor = m;
  }

  /** A step of {@code p}'s shape as the read's path prices it ({@link ShapeSplits#shapeNs}). */
  double shapeNs(CpuProfile p, String step) {
    return ShapeSplits.shapeNs(p, step, tailFactor);
  }

  void set(KernelFn fn, double ns) {
    prices[fn.ordinal()] = ns;
    priced[fn.ordinal()] = true;
  }

  /** Moves {@code ns} (at most all) of {@code from}'s cost to {@code to}. */
  void split(KernelFn from, KernelFn to, double ns) {
    double moved = Math.min(ns, ns(from));
    set(to, moved);
    set(from, ns(from) - moved);
  }

  /** Takes {@code ns} off {@code fn}'s cost, down to 0 at most. */
  void reduce(KernelFn fn, double ns) {
    set(fn, Math.max(0, ns(fn) - ns));
  }

  double ns(KernelFn fn) {
    if (!priced[fn.ordinal()]) {
      throw new IllegalStateException(fn.symbol() + " is read before it is priced");
    }
    return prices[fn.ordinal()];
  }

  /**
   * One RCU read-side section, ns: the profile's {@code __rcu_read_lock} and {@code
   * __rcu_read_unlock}, out of line under PREEMPT_RCU as in the profiles they were measured on
   * (docs/costs.md 2.7). Known once the shape's rows are split.
   */
  double rcuSectionNs() {
    return ns(KernelFn.RCU_READ_LOCK) + ns(KernelFn.RCU_READ_UNLOCK);
  }

  /**
   * One {@code percpu_ref_get} or {@code percpu_ref_put} of a live reference, ns: an RCU read-side
   * section around {@code __ref_is_percpu}'s load of the counter's pointer and a per-CPU add.
   */
  double percpuRefNs(double l1, double percpu) {
    return rcuSectionNs() + l1 + percpu;
  }

  private void add(KernelFn fn, double ns) {
    set(fn, ns(fn) + ns);
  }

  private static long ps(double ns) {
    return Math.round(ns * 1000.0);
  }
}

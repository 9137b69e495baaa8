package blksim.loadgen.perf;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which of blksim's steps (the {@code steps} of profile begunkov-2021) holds the work of a symbol
 * that {@code perf report} shows: the rows of docs/costs.md section 6, with the names inlined,
 * renamed or split functions have in other kernels (the alias table of docs/your-box.md 3).
 */
public final class SymbolMap {
  private SymbolMap() {}

  /** Where a symbol's time goes. */
  public enum Kind {
    /** A kernel symbol that a step holds. */
    STEP,
    /** A kernel symbol blksim prices from the CPU's facts, not from a step (docs/your-box.md 3). */
    FACTS,
    /**
     * t/io_uring's own code in user space: row 1, the steps prep_more_ios_uring/reap_events_uring.
     */
    TIO_URING,
    /** Other user space (fio, libc, the vDSO): the step fio_user_space. */
    USER,
    /** A kernel symbol no step holds: summed into the step unattributed. */
    UNMAPPED
  }

  /**
   * A symbol's place.
   *
   * @param steps the steps its time goes to, each with its part (1 for one step)
   * @param fact the fact that prices it, for {@link Kind#FACTS}
   */
  public record Place(Kind kind, Map<String, Double> steps, String fact) {}

  /** The remainder step: kernel symbols no row holds (row 19). */
  public static final String UNATTRIBUTED = "unattributed";

  /** User space beyond t/io_uring's loop. */
  public static final String USER_STEP = "fio_user_space";

  /** symbol -> step, by row of docs/costs.md section 6. */
  static final Map<String, String> STEPS = new LinkedHashMap<>();

  /** kernel symbol -> the fact that prices it. */
  static final Map<String, String> FACTS = new LinkedHashMap<>();

  /**
   * The I/Os one unit of a step stands for on the seed command ({@code t/io_uring -d32 -s32 -c32
   * -b512 -p1}, IOS/call=32/32): a step priced per call, per poll pass or per RCU call, not per
   * I/O. A step not listed is per I/O.
   */
  static final Map<String, Double> IOS_PER_UNIT =
      Map.of(
          // one io_uring_enter per 32 I/Os (IOS/call=32/32)
          "io_uring_enter", 32.0,
          "fdget_fdput", 32.0,
          // one io_do_iopoll pass per call, which finds the batch's 32
          "io_do_iopoll", 32.0,
          // six read-side sections a read: three of row 9, hctx_lock's, the rsrc node's two
          // (docs/costs.md section 6)
          "__rcu_read_lock", 1.0 / 6,
          "__rcu_read_unlock", 1.0 / 6);

  /** t/io_uring's own functions (fio's t/io_uring.c), as a report names them. */
  static final Set<String> TIO_URING_FNS =
      Set.of(
          "submitter_uring_fn",
          "submitter_fn",
          "prep_more_ios",
          "prep_more_ios_uring",
          "reap_events",
          "reap_events_uring",
          "init_io",
          "init_io_uring",
          "get_offset",
          "io_uring_enter_user",
          "do_io",
          "do_submit");

  private static void row(String step, String... symbols) {
    for (String s : symbols) {
      STEPS.put(s, step);
    }
  }

  static {
    // row 2, per io_uring_enter call
    row(
        "io_uring_enter",
        "io_uring_enter",
        "__do_sys_io_uring_enter",
        "__x64_sys_io_uring_enter",
        "__se_sys_io_uring_enter",
        "io_iopoll_check");
    row("fdget_fdput", "__fget_light", "__fdget", "fdget");
    // row 3
    row(
        "io_submit_sqes",
        "io_submit_sqes",
        "io_submit_sqe",
        "io_init_req",
        "io_alloc_req",
        "io_alloc_req_refill",
        "__io_alloc_req_refill",
        "io_queue_sqe",
        "io_file_get",
        "io_file_get_fixed",
        "io_req_set_rsrc_node",
        "io_submit_state_start",
        "io_submit_state_end",
        "io_get_sqe");
    // row 4: ShapeSplits gives io_issue_sqe, io_prep_rw, io_import_iovec their parts
    row(
        "io_read",
        "io_read",
        "io_issue_sqe",
        "io_prep_rw",
        "io_import_iovec",
        "__io_import_iovec",
        "io_import_fixed",
        "io_rw_init_file",
        "io_iter_do_read",
        "io_read_prep");
    // row 5
    row("blkdev_read_iter", "blkdev_read_iter");
    row(
        "__blkdev_direct_IO",
        "__blkdev_direct_IO",
        "__blkdev_direct_IO_async",
        "blkdev_direct_IO",
        "__blkdev_direct_IO_simple");
    // row 6 (bio_init: the facts, below)
    row("bio_alloc_kiocb", "bio_alloc_kiocb", "bio_alloc_cache", "bio_alloc_percpu_cache");
    // row 7
    row(
        "bio_iov_iter_get_pages",
        "bio_iov_iter_get_pages",
        "__bio_iov_iter_get_pages",
        "bio_iov_iter_get_pages_hint",
        "bio_iov_bvec_set",
        "iov_iter_advance",
        "iov_iter_bvec_advance");
    // row 8
    row(
        "submit_bio_noacct",
        "submit_bio",
        "submit_bio_noacct",
        "submit_bio_noacct_nocheck",
        "submit_bio_checks",
        "__submit_bio",
        "blk_queue_split",
        "__bio_split_to_limits");
    // row 9, its RCU calls apart
    row(
        "bio_queue_enter",
        "bio_queue_enter",
        "blk_try_enter_queue",
        "blk_queue_enter",
        "blk_queue_exit",
        "percpu_ref_tryget_live",
        "percpu_ref_put_many");
    row("__rcu_read_lock", "__rcu_read_lock");
    row("__rcu_read_unlock", "__rcu_read_unlock");
    // row 10
    row("blk_mq_submit_bio", "blk_mq_submit_bio", "blk_mq_bio_to_request", "blk_add_rq_to_plug");
    // row 11
    row(
        "__blk_mq_alloc_requests",
        "__blk_mq_alloc_requests",
        "__blk_mq_alloc_request",
        "__blk_mq_alloc_requests_batch",
        "blk_mq_get_new_requests",
        "blk_mq_rq_ctx_init",
        "blk_mq_get_tag",
        "blk_mq_get_tags",
        "__blk_mq_get_tag",
        "__sbitmap_queue_get",
        "__sbitmap_queue_get_batch",
        "sbitmap_get",
        "__sbitmap_get_word");
    // row 12
    row(
        "blk_mq_flush_plug_list",
        "blk_mq_flush_plug_list",
        "blk_flush_plug_list",
        "__blk_flush_plug",
        "blk_finish_plug",
        "blk_mq_start_request",
        "blk_mq_request_issue_directly",
        "__blk_mq_issue_directly",
        "__blk_mq_try_issue_directly",
        "blk_mq_try_issue_list_directly",
        "blk_mq_plug_issue_direct",
        "blk_mq_get_driver_tag",
        "__blk_mq_get_driver_tag");
    // row 13
    row("null_queue_rq", "null_queue_rq", "null_handle_cmd", "null_process_cmd");
    // row 14: io_do_iopoll per pass, the rest per request
    row("io_do_iopoll", "io_do_iopoll");
    row(
        "null_poll",
        "null_poll",
        "blkdev_iopoll",
        "iocb_bio_iopoll",
        "bio_poll",
        "blk_poll",
        "blk_mq_poll");
    // row 15
    row(
        "blkdev_bio_end_io_async",
        "blkdev_bio_end_io_async",
        "blkdev_bio_end_io",
        "bio_endio",
        "req_bio_endio",
        "blk_update_request",
        "io_complete_rw_iopoll",
        "io_complete_rw");
    // row 16
    row(
        "blk_mq_end_request",
        "blk_mq_end_request",
        "__blk_mq_end_request",
        "blk_mq_end_request_batch",
        "blk_mq_free_request",
        "__blk_mq_free_request",
        "blk_mq_put_tag",
        "sbitmap_queue_clear",
        "sbitmap_queue_clear_batch",
        "blk_mq_flush_tag_batch",
        "__blk_mq_sched_restart",
        "blk_mq_sched_restart");
    // row 17
    row("bio_put", "bio_put", "bio_uninit", "bio_put_percpu_cache");
    // row 18: 5.15's io_iopoll_complete, 5.16's io_free_batch_list, are this work on IOPOLL
    row(
        "__io_submit_flush_completions",
        "__io_submit_flush_completions",
        "io_submit_flush_completions",
        "io_iopoll_complete",
        "io_free_batch_list",
        "io_fill_cqe_req",
        "__io_fill_cqe",
        "__io_fill_cqe_req",
        "__io_cqring_fill_event",
        "io_commit_cqring",
        "__io_commit_cqring_flush",
        "io_req_free_batch",
        "io_req_free_batch_finish",
        "io_cqring_ev_posted");
    // the slab path of a bio (docs/costs.md 2.1)
    row("bio_alloc_bioset", "bio_alloc_bioset");
    row("kmem_cache_alloc", "kmem_cache_alloc", "mempool_alloc", "mempool_alloc_slab");
    row(
        "bio_free",
        "bio_free",
        "kmem_cache_free",
        "__slab_free",
        "mempool_free",
        "mempool_free_slab");
    row("__schedule", "__schedule", "schedule");
    // priced from the facts: their time is the facts', not a step's (docs/your-box.md 3)
    for (String s :
        new String[] {
          "entry_SYSCALL_64",
          "entry_SYSCALL_64_after_hwframe",
          "syscall_return_via_sysret",
          "do_syscall_64",
          "syscall_exit_to_user_mode",
          "exit_to_user_mode_prepare"
        }) {
      FACTS.put(s, "syscall-ns");
    }
    // -F0's file reference per request: an atomic each way
    FACTS.put("__fget_files", "atomic-cycles (fget without -F1)");
    FACTS.put("fput", "atomic-cycles (fput without -F1)");
    FACTS.put("bio_init", "store-cycles (bio_init's 20 stores)");
    for (String s : new String[] {"ktime_get_ns", "ktime_get", "read_tsc"}) {
      FACTS.put(s, "ktime-get-ns");
    }
    for (String s :
        new String[] {
          "blk_account_io_start",
          "blk_account_io_done",
          "__blk_account_io_start",
          "__blk_account_io_done"
        }) {
      FACTS.put(s, "l2-load-cycles (iostats' accounting)");
    }
  }

  /**
   * The name without the suffixes gcc adds to a copy of a function ({@code .part.0}, {@code
   * .isra.0}, {@code .constprop.0}, {@code .cold}, {@code .llvm.123}).
   */
  public static String baseName(String symbol) {
    return symbol.replaceAll("(\\.(part|isra|constprop|cold|llvm|lto_priv)(\\.\\d+)?)+$", "");
  }

  /** Where {@code e}'s time goes. */
  public static Place place(PerfEntry e) {
    String name = baseName(e.symbol());
    boolean tioUring = TIO_URING_FNS.contains(name) || "io_uring".equals(e.dso());
    if (e.user() || (e.dso().isEmpty() && TIO_URING_FNS.contains(name))) {
      if (tioUring) {
        if (name.startsWith("prep_more_ios")) {
          return new Place(Kind.TIO_URING, Map.of("prep_more_ios_uring", 1.0), null);
        }
        if (name.startsWith("reap_events")) {
          return new Place(Kind.TIO_URING, Map.of("reap_events_uring", 1.0), null);
        }
        // the loop with both inlined (submitter_uring_fn): half each, as row 1 has them
        return new Place(
            Kind.TIO_URING, Map.of("prep_more_ios_uring", 0.5, "reap_events_uring", 0.5), null);
      }
      return new Place(Kind.USER, Map.of(USER_STEP, 1.0), null);
    }
    String step = STEPS.get(name);
    if (step != null) {
      return new Place(Kind.STEP, Map.of(step, 1.0), null);
    }
    String fact = FACTS.get(name);
    if (fact != null) {
      return new Place(Kind.FACTS, Map.of(), fact);
    }
    return new Place(Kind.UNMAPPED, Map.of(UNATTRIBUTED, 1.0), null);
  }

  /** I/Os one unit of {@code step} stands for on the seed command (1: a per-I/O step). */
  public static double iosPerUnit(String step) {
    return IOS_PER_UNIT.getOrDefault(step, 1.0);
  }
}

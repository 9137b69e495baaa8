package blksim.queues.cost;

import blksim.config.ConfigError;
import blksim.config.CpuProfile;

/**
 * What an IORING_OP_NOP costs ({@code t/io_uring -N1}), in the functions it runs: t/io_uring's prep
 * and reap, {@code io_submit_sqes}, {@code io_issue_sqe} (with {@code io_nop}) and {@code
 * __io_submit_flush_completions}. {@link PathCosts} calls it.
 *
 * <p>The profile's step {@code nop} is what one nop costs in all on its box at {@code -d32 -s32
 * -c32} (docs/costs.md 1.2): that is calibrated, not predicted. Less its share of the {@code
 * io_uring_enter} calls (the syscall, {@code io_uring_enter}'s own work and {@code fdget_fdput},
 * one call per 32 nops), it is spread over the nop's functions in proportion to what the read's
 * rows give them (docs/costs.md section 6): rows 1 and 3, less the fixed-file lookup and the
 * rsrc-node reference that a nop does not take; io_issue_sqe's part of row 4 ({@link
 * ShapeSplits#ISSUE_PCT}); row 18, less the rsrc-node reference. A nop costs those rows at about
 * half what they cost a read: its io_kiocb, SQE and CQE lines stay in L1 from submission to
 * completion, where a read's come back after a batch of block-layer work (our reading; no profile
 * of a nop splits it).
 */
final class NopCosts {
  private NopCosts() {}

  /** io_issue_sqe's part of row 4 in Jens Axboe's profile (docs/costs.md 2.6). */
  static final double ISSUE_SHARE_OF_IO_READ = ShapeSplits.ISSUE_PCT / ShapeSplits.ROW4_PCT;

  /** Nops per io_uring_enter in the measurement of {@code steps.nop} ({@code -s32 -c32}). */
  static final int MEASURED_PER_CALL = 32;

  /**
   * Prices the nop's functions; with {@code nop} false, {@code io_issue_sqe} costs nothing and the
   * read's rows stay.
   *
   * @param l1 an L1 load, ns
   * @param percpu a per-CPU add, ns
   */
  static void price(PathCosts c, CpuProfile p, boolean nop, double l1, double percpu) {
    if (!nop) {
      c.set(KernelFn.IO_NOP, 0);
      return;
    }
    // percpu_ref_get and _put of the rsrc node (an RCU read-side section around a load and a
    // per-CPU add each); io_file_get_fixed loads the file table and the slot
    double rsrcRef = c.percpuRefNs(l1, percpu);
    double prep = p.scaledNs("prep_more_ios_uring");
    double submit = Math.max(0, p.scaledNs("io_submit_sqes") - 2 * l1 - rsrcRef);
    double issue = p.scaledNs("io_read") * ISSUE_SHARE_OF_IO_READ;
    double flush = Math.max(0, p.scaledNs("__io_submit_flush_completions") - rsrcRef);
    double reap = p.scaledNs("reap_events_uring");
    double perCall =
        c.ns(KernelFn.SYSCALL) + p.scaledNs("io_uring_enter") + p.scaledNs("fdget_fdput");
    double core = p.scaledNs("nop") - perCall / MEASURED_PER_CALL;
    if (core < 0) {
      throw new ConfigError(
          String.format(
              java.util.Locale.ROOT,
              "profile %s: steps.nop (%.2f ns scaled) is less than a nop's share of io_uring_enter"
                  + " (%.2f ns: 1/%d of the syscall, io_uring_enter and fdget_fdput); give it more",
              p.name(),
              p.scaledNs("nop"),
              perCall / MEASURED_PER_CALL,
              MEASURED_PER_CALL));
    }
    double sum = prep + submit + issue + flush + reap;
    if (sum == 0) {
      // a profile that prices none of the rows: the nop's cost is all io_submit_sqes'
      submit = 1;
      sum = 1;
    }
    double k = core / sum;
    c.set(KernelFn.PREP_MORE_IOS_URING, prep * k);
    c.set(KernelFn.IO_SUBMIT_SQES, submit * k);
    c.set(KernelFn.IO_NOP, issue * k);
    c.set(KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS, flush * k);
    c.set(KernelFn.REAP_EVENTS_URING, reap * k);
  }
}

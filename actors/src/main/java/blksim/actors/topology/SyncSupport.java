package blksim.actors.topology;

import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.NullBlkSettings;

/**
 * What of {@code t/io_uring -S1} (preadv2, one read at a time per thread) blksim runs: a read whose
 * bio ends in {@code queue_rq} (irqmode 0 or 1) or by its timer (irqmode 2, the task sleeping until
 * the interrupt), or that a poll ends (its own thread's, or another's on a poll queue they share,
 * which wakes it). Where the task would sleep for a tag, the case is refused by name.
 */
final class SyncSupport {
  private SyncSupport() {}

  /** The settings alone. */
  static void check(BlksimSettings s) {
    IoUringSettings u = s.ioUring();
    if (!u.syncIo()) {
      return;
    }
    outsideTheRing(s, "-S1", "sync", "a sync read");
  }

  /**
   * What a loop other than io_uring's ({@code flag}: -S1, -a1) does not run yet: the files -N1 does
   * not open, buffered reads, DM, faults.
   */
  static void outsideTheRing(BlksimSettings s, String flag, String loop, String read) {
    IoUringSettings u = s.ioUring();
    NullBlkSettings n = s.nullBlk();
    ModelSupport.unsupported(
        u.nop(),
        flag
            + " with -N1: t/io_uring's "
            + loop
            + " loop reading the files that -N1 does not open");
    ModelSupport.unsupported(!u.oDirect(), flag + " -O0: buffered reads through the page cache");
    ModelSupport.unsupported(
        u.files().stream().anyMatch(f -> ModelSupport.DM.matcher(f).matches()),
        flag + " on a DM device: " + read + " through device mapper");
    ModelSupport.unsupported(
        n.timeout().enabled() || n.requeue().enabled(),
        flag + " with a fault injected (timeout=, requeue=): " + read + " waiting out its fault");
  }
}

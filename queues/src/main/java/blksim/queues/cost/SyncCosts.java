package blksim.queues.cost;

import blksim.config.CpuProfile;
import blksim.config.KernelSettings;

/**
 * What {@code t/io_uring -S1}'s reads cost beyond the block layer they share with io_uring's: one
 * {@code preadv2} each, a bio on the stack (block/fops.c {@code __blkdev_direct_IO_simple}, 5.15 to
 * 6.1). {@link PathCosts} calls it, after the rows it reuses are set.
 *
 * <ul>
 *   <li>{@code submitter_sync_fn}: the prep half of row 1, which picks the file and draws the
 *       offset; a sync loop has no SQE or CQE to write or read.
 *   <li>{@code vfs_readv}: row 4 less io_issue_sqe ({@code io_prep_rw}, the import and {@code
 *       io_read}'s own, {@link ShapeSplits}): the kiocb set up, the iovec imported, {@code
 *       rw_verify_area}; and {@code fsnotify_access} (a call, a load).
 *   <li>{@code __blkdev_direct_IO_simple}: what {@code __blkdev_direct_IO} costs (the bdev lookup,
 *       the bio's set-up), with the wait: {@code set_current_state} twice (a full barrier each,
 *       {@code smp_store_mb}: an atomic), {@code READ_ONCE(bio.bi_private)} and {@code bio_uninit}
 *       (a call).
 *   <li>{@code bio_endio}: the generic part of row 15, its 2.64 of 2.64 + 4.55 % (bio_endio and
 *       blkdev_bio_end_io_async, docs/costs.md 2.5), less rq_qos's loads with bio-tracked-rq-qos.
 *   <li>{@code blkdev_bio_end_io_simple}: a call, the waiter's load, two stores ({@code bi_private}
 *       and, the waiter being the current task, its state).
 * </ul>
 */
final class SyncCosts {
  private SyncCosts() {}

  /** io_prep_rw's, the import's and io_read's own part of row 4 (docs/costs.md 2.6). */
  static final double IMPORT_SHARE_OF_IO_READ = 1 - NopCosts.ISSUE_SHARE_OF_IO_READ;

  /** bio_endio's part of row 15 (docs/costs.md 2.5). */
  static final double BIO_ENDIO_SHARE = 2.64 / (2.64 + 4.55);

  static void price(
      PathCosts c,
      CpuProfile p,
      KernelSettings k,
      double call,
      double l1,
      double atomic,
      double store) {
    c.set(KernelFn.SUBMITTER_SYNC_FN, p.scaledNs("prep_more_ios_uring"));
    c.set(KernelFn.VFS_READV, c.shapeNs(p, "io_read") * IMPORT_SHARE_OF_IO_READ + call + l1);
    c.set(
        KernelFn.BLKDEV_DIRECT_IO_SIMPLE, c.ns(KernelFn.BLKDEV_DIRECT_IO) + 2 * atomic + l1 + call);
    c.set(KernelFn.BIO_ENDIO, c.shapeNs(p, "blkdev_bio_end_io_async") * BIO_ENDIO_SHARE);
    c.set(KernelFn.BLKDEV_BIO_END_IO_SIMPLE, call + l1 + 2 * store);
  }
}

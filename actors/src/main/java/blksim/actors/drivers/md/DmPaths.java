package blksim.actors.drivers.md;

import blksim.queues.cost.KernelFn;

/** The kernel functions a DM device's stretches of the path run, in order, each a table. */
final class DmPaths {
  private DmPaths() {}

  /**
   * An original's way in: submit_bio_noacct and __submit_bio of a bio-based disk, per bio, which
   * enters the queue around the driver's submit_bio.
   */
  static final KernelFn[] SUBMIT_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_LOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.DM_SUBMIT_BIO,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };

  /** From the clone allocated to its remapped submission, per bio. */
  static final KernelFn[] MAP_PATH = {
    KernelFn.DM_ALLOC_IO,
    KernelFn.BIO_CLONE,
    KernelFn.BIO_ASSOCIATE_BLKG,
    KernelFn.LINEAR_MAP,
    KernelFn.DM_START_IO_ACCT
  };

  /** dm_io_complete with its accounting, per io. */
  static final KernelFn[] COMPLETE_PATH = {KernelFn.DM_IO_COMPLETE, KernelFn.DM_END_IO_ACCT};
}

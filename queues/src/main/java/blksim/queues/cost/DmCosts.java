package blksim.queues.cost;

import blksim.config.MicroArch;

/**
 * What device mapper costs (drivers/md/dm.c, 5.18-5.19; docs/kernel.md 4.2, 4.3), none of it in the
 * raw path's breakdown. The device's own structures (md, its live table and target, the linear
 * context, the SRCU and partition per-CPU data) are touched by every I/O, so their loads are L1
 * hits; the dm_io, its tio and clone, written at submission and read again at completion a batch of
 * I/Os later, are L2 hits. {@code dm_submit_bio} takes and drops the live table under SRCU ({@code
 * __srcu_read_lock/unlock}: a per-CPU add and a full barrier each, an atomic and an L1 load), reads
 * {@code md->flags} and the map (two L1), and {@code __submit_bio_noacct} queues the clone on
 * {@code current->bio_list} and pops it (four stores); {@code alloc_io} initialises the dm_io and
 * its embedded tio (14 stores, a per-CPU add, an L1 load); {@code __bio_clone} copies the
 * original's fields, just written (8 stores, two L1); {@code linear_map} with {@code __map_bio} and
 * {@code dm_table_find_target} (three calls, four L1); {@code dm_start_io_acct}/{@code
 * dm_end_io_acct} account the original as a bio-based driver does, whatever iostats says (a call,
 * an L1, per-CPU adds); {@code clone_endio} is a second {@code bio_endio} and reads the tio and the
 * io (two calls, two L2, the target's {@code end_io} an L1) before {@code dm_io_dec_pending} (an
 * atomic); {@code dm_io_complete} (two calls, an L1, a per-CPU add); {@code dm_poll_bio} swaps
 * {@code bi_private} back (two stores) and reads the io's {@code io_count} (an L2); the clone's
 * {@code bio_poll} finds its queue and hardware queue (a call, two L1); {@code queue_io} takes
 * {@code deferred_lock} with interrupts saved and queues {@code md->work} (three atomics); {@code
 * dm_wq_work} takes the lock again and pops the bio (an atomic, two L2). {@code bio_alloc_clone}
 * from the per-CPU cache (seed 002 1/3) is the same pop as {@code bio_alloc_kiocb} (the profile's
 * step); {@code bio_associate_blkg} is the profile's fact (CONFIG_BLK_CGROUP).
 *
 * <p>{@link PathCosts} calls it.
 */
final class DmCosts {
  private DmCosts() {}

  /** Prices device mapper's functions from the CPU's facts. */
  static void price(
      PathCosts c,
      MicroArch f,
      double call,
      double l1,
      double l2,
      double atomic,
      double irq,
      double store,
      double percpu) {
    c.set(KernelFn.DM_SUBMIT_BIO, call + 2 * (atomic + l1) + 2 * l1 + 4 * store);
    c.set(KernelFn.DM_ALLOC_IO, call + 14 * store + percpu + l1);
    c.set(KernelFn.BIO_ALLOC_CLONE, c.ns(KernelFn.BIO_ALLOC_KIOCB));
    c.set(KernelFn.BIO_CLONE, call + 8 * store + 2 * l1);
    c.set(KernelFn.BIO_ASSOCIATE_BLKG, f.blkgAssociateNs());
    c.set(KernelFn.LINEAR_MAP, 3 * call + 4 * l1);
    c.set(KernelFn.DM_START_IO_ACCT, call + l1 + percpu);
    c.set(KernelFn.DM_END_IO_ACCT, call + l1 + percpu);
    c.set(KernelFn.CLONE_ENDIO, 2 * call + 2 * l2 + l1 + atomic);
    c.set(KernelFn.DM_IO_COMPLETE, 2 * call + percpu + l1);
    c.set(KernelFn.DM_POLL_BIO, call + 2 * store + l2);
    c.set(KernelFn.BIO_POLL, call + 2 * l1);
    c.set(KernelFn.QUEUE_IO, call + 3 * atomic + irq);
    c.set(KernelFn.DM_WQ_WORK, call + atomic + irq + 2 * l2);
  }
}

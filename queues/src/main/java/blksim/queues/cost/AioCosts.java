package blksim.queues.cost;

import blksim.config.CpuProfile;

/**
 * What {@code t/io_uring -a1}'s libaio costs beyond the block layer (fs/aio.c 5.16), none of it in
 * the shape: counted from the code in calls, loads, stores, atomics and interrupt toggles of this
 * CPU's facts, as device mapper's path is, with the slab's steps. {@link PathCosts} calls it.
 *
 * <ul>
 *   <li>t/io_uring's {@code prep_more_ios_aio} and {@code reap_events_aio}: the halves of row 1, as
 *       its io_uring loop's prep and reap.
 *   <li>Per syscall, {@code lookup_ioctx}: the ring's id read from user space, the mm's table and
 *       the context (three loads) under RCU (a read-side section), {@code percpu_ref_tryget_live}
 *       and {@code percpu_ref_put} of {@code ctx->users} (each such a section around a load and a
 *       per-CPU add, {@link PathCosts#percpuRefNs}). The sections, three a syscall and one for each
 *       {@code ctx->reqs} get and put, are the profile's {@code __rcu_read_lock} and {@code
 *       __rcu_read_unlock}, charged as those functions. {@code io_submit} adds {@code
 *       blk_start_plug} and {@code blk_finish_plug} (two calls); {@code io_getevents} the ring's
 *       mutex (two atomics), its head and tail (two loads), the head's store, and {@code
 *       copy_to_user}'s set-up (a call); each event copied is a load and four stores (32 bytes).
 *   <li>{@code io_submit_one}: the iocb's pointer and the 64-byte iocb copied in (two loads, eight
 *       stores), {@code aio_get_req} ({@code kmem_cache_alloc}, {@code get_reqs_available} with
 *       interrupts saved and a per-CPU add, {@code percpu_ref_get} of {@code ctx->reqs}, four
 *       stores), {@code put_user} of the key and {@code ki_res} (a load, five stores), {@code
 *       aio_read}'s kiocb and iovec as io_read's (row 4 less io_issue_sqe's share, docs/costs.md
 *       2.6), and {@code iocb_put} (an atomic). The file's {@code fget}/{@code fput} is its own
 *       function.
 *   <li>{@code aio_complete_rw}: a call, a load and two stores; {@code iocb_put} (an atomic);
 *       {@code aio_complete} under {@code completion_lock} with interrupts saved (an atomic), the
 *       tail, the ring's head and the completed count (three loads), the event and the tails (seven
 *       stores), {@code refill_reqs_available} (a call, two loads), the {@code smp_mb} before
 *       {@code waitqueue_active} (an atomic, a load); {@code iocb_destroy}: {@code percpu_ref_put}
 *       of {@code ctx->reqs} and {@code kmem_cache_free} (the profile's {@code bio_free} less its
 *       mempool part, 15.0 of 17.1, docs/costs.md 2.1).
 * </ul>
 */
final class AioCosts {
  private AioCosts() {}

  /** kmem_cache_free and __slab_free of bio_free's 17.1 ns in situ (docs/costs.md 2.1). */
  static final double SLAB_FREE_SHARE = (5.7 + 9.3) / 17.1;

  static void price(
      PathCosts c,
      CpuProfile p,
      double call,
      double l1,
      double atomic,
      double irq,
      double store,
      double percpu) {
    // each percpu_ref get or put less its RCU section, which the paths charge as its functions
    double percpuRef = c.percpuRefNs(l1, percpu) - c.rcuSectionNs();
    c.set(KernelFn.RCU_READ_LOCK_AIO, c.ns(KernelFn.RCU_READ_LOCK));
    c.set(KernelFn.RCU_READ_UNLOCK_AIO, c.ns(KernelFn.RCU_READ_UNLOCK));
    double lookup = 3 * l1 + 2 * percpuRef;
    c.set(KernelFn.PREP_MORE_IOS_AIO, p.scaledNs("prep_more_ios_uring"));
    c.set(KernelFn.REAP_EVENTS_AIO, p.scaledNs("reap_events_uring"));
    c.set(KernelFn.IO_SUBMIT, lookup + 2 * call);
    c.set(KernelFn.IO_GETEVENTS, lookup + 2 * atomic + 2 * l1 + store + call);
    c.set(KernelFn.AIO_READ_EVENTS_RING, l1 + 4 * store);
    double getReq = c.shapeNs(p, "kmem_cache_alloc") + irq + percpu + percpuRef + 4 * store;
    double kiocb = c.shapeNs(p, "io_read") * SyncCosts.IMPORT_SHARE_OF_IO_READ;
    c.set(KernelFn.IO_SUBMIT_ONE, 3 * l1 + 13 * store + getReq + kiocb + atomic);
    double complete = 2 * atomic + irq + 6 * l1 + 7 * store + call;
    double destroy = percpuRef + c.shapeNs(p, "bio_free") * SLAB_FREE_SHARE;
    c.set(KernelFn.AIO_COMPLETE_RW, call + l1 + 2 * store + atomic + complete + destroy);
  }
}

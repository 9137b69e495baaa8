package blksim.queues.tiouring;

import blksim.config.IoUringSettings;

/**
 * The loop a t/io_uring thread runs (fio's t/io_uring.c): {@code submitter_sync_fn} with {@code
 * -S1}, else {@code submitter_aio_fn} with {@code -a1}, else {@code submitter_uring_fn}, whose
 * reads are nops with {@code -N1}. Its {@code Engine=} line names it. With it go the rules of
 * {@code setup_ring} and {@code setup_aio} that depend on it.
 */
public enum SubmitterFn {
  /** {@code submitter_uring_fn}: reads through a ring. */
  IO_URING,
  /** {@code submitter_uring_fn} with {@code -N1}: IORING_OP_NOP through a ring. */
  NOP,
  /** {@code submitter_sync_fn}: {@code preadv2}. */
  PREADV2,
  /** {@code submitter_aio_fn}: libaio's {@code io_submit} and {@code io_getevents}. */
  AIO;

  /** The loop of {@code u}: use_sync before aio, aio before the ring. */
  public static SubmitterFn of(IoUringSettings u) {
    if (u.syncIo()) {
      return PREADV2;
    }
    if (u.aio()) {
      return AIO;
    }
    return u.nop() ? NOP : IO_URING;
  }

  /** Whether the thread submits through an io_uring ring (its reads or its nops). */
  public boolean ring() {
    return this == IO_URING || this == NOP;
  }

  /**
   * Whether the ring is IORING_SETUP_IOPOLL: {@code setup_ring} sets it for {@code -p1} only when
   * it reads ({@code polled && !do_nop}).
   */
  public boolean iopoll(IoUringSettings u) {
    return u.polled() && this == IO_URING;
  }

  /**
   * Whether the reads use registered buffers ({@code -B1}): only a ring's reads ({@code setup_aio}
   * turns fixedbufs off, and preadv2 reads into user memory).
   */
  public boolean fixedBuffers(IoUringSettings u) {
    return u.fixedBuffers() && this == IO_URING;
  }

  /**
   * Pages of user memory an I/O covers: t/io_uring's buffers are page-aligned ({@code
   * posix_memalign} of the page size), so a block of {@code bs} bytes spans {@code bs / 4096}
   * pages, rounded up.
   */
  public static int pagesPerIo(IoUringSettings u) {
    return (u.blockSize() + 4095) / 4096;
  }

  /**
   * The vecs each read's bio needs: a registered buffer's bvec is the bio's own, else one per page
   * ({@link #pagesPerIo}).
   */
  public int nrVecs(IoUringSettings u) {
    return fixedBuffers(u) ? 0 : pagesPerIo(u);
  }

  /**
   * The events of a {@code -a1} thread's libaio context: {@code setup_aio} calls {@code
   * io_queue_init(roundup_pow2(depth))} (docs/kernel.md section 11), {@code io_setup}'s {@code
   * nr_events}.
   */
  public static int aioEvents(int depth) {
    return Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
  }
}

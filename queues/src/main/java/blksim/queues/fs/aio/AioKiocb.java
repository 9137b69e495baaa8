package blksim.queues.fs.aio;

import blksim.queues.block.bio.BioOwner;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.Sqe;

/**
 * Models {@code struct aio_kiocb} (fs/aio.c): one libaio request, from {@code aio_get_req} in
 * {@code io_submit} to {@code iocb_destroy} after its event is in the ring. Its bio's {@code
 * ki_complete} is {@code aio_complete_rw}.
 */
public final class AioKiocb implements BioOwner {
  /**
   * An aio read's bio ended: blkdev_bio_end_io_async, its pages, aio_complete_rw with the RCU
   * section of its {@code ctx->reqs} put, and iocb_destroy's fput; per bio.
   */
  public static final KernelFn[] END_IO_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC,
    KernelFn.BIO_RELEASE_PAGES,
    KernelFn.AIO_COMPLETE_RW,
    KernelFn.RCU_READ_LOCK_AIO,
    KernelFn.RCU_READ_UNLOCK_AIO,
    KernelFn.FPUT
  };

  private final KioCtx ctx;
  private final Sqe iocb;

  AioKiocb(KioCtx ctx, Sqe iocb) {
    this.ctx = ctx;
    this.iocb = iocb;
  }

  /** {@code ki_ctx}: the context it was submitted to. */
  public KioCtx ctx() {
    return ctx;
  }

  /** The {@code struct iocb} user space submitted: file, offset, length, {@code aio_data}. */
  public Sqe iocb() {
    return iocb;
  }

  /**
   * {@code ki_complete} of the request whose bio ended with {@code res}, wherever it ends: {@code
   * aio_complete_rw}, whose {@code aio_complete} puts its event in its context's ring ({@link
   * KioCtx#complete}).
   *
   * @return the functions it ran, from the bio's end_io on, per bio
   */
  public KernelFn[] aioCompleteRw(long res) {
    ctx.complete(this, res);
    return END_IO_PATH;
  }
}

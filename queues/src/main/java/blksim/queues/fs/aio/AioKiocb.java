package blksim.queues.fs.aio;

import blksim.queues.block.bio.BioOwner;
import blksim.queues.io_uring.Sqe;

/**
 * Models {@code struct aio_kiocb} (fs/aio.c): one libaio request, from {@code aio_get_req} in
 * {@code io_submit} to {@code iocb_destroy} after its event is in the ring. Its bio's {@code
 * ki_complete} is {@code aio_complete_rw}.
 */
public final class AioKiocb implements BioOwner {
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
}

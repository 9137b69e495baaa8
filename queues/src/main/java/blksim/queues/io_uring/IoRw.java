package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.KernelFn;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * An io_uring read on the raw block device, between the ring and the block layer: {@code io_read}
 * down to {@code __blkdev_direct_IO_async}'s set-up of the request's bio (block/fops.c 5.16), and
 * back up from {@code bi_end_io} to the request's {@code ki_complete}, which the ring's setup chose
 * ({@code io_rw_init_file}: {@code io_complete_rw_iopoll} on an IOPOLL ring, else {@code
 * io_complete_rw}; fs/io_uring.c 5.16). docs/kernel.md section 6.
 */
public final class IoRw {
  /**
   * EOPNOTSUPP: what {@code io_rw_init_file} answers on an IOPOLL ring for a file without O_DIRECT.
   */
  public static final int EOPNOTSUPP = 95;

  /** The user pages of a bio: a registered buffer's bvec, or pinned pages. */
  public static final KernelFn[] PAGES_PATH = {
    KernelFn.BIO_IOV_ITER_GET_PAGES,
    KernelFn.IOV_ITER_ADVANCE,
    KernelFn.BIO_IOV_BVEC_SET,
    KernelFn.GET_USER_PAGES_FAST
  };

  /** bio_endio to ki_complete on an IOPOLL ring ({@code io_complete_rw_iopoll}), per bio. */
  public static final KernelFn[] END_IO_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC, KernelFn.BIO_RELEASE_PAGES
  };

  /** bio_endio to {@code io_complete_rw}, which queues task_work, per bio. */
  public static final KernelFn[] IRQ_END_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC, KernelFn.BIO_RELEASE_PAGES, KernelFn.IO_REQ_TASK_WORK_ADD
  };

  private final IoRingCtx ring;
  private final boolean iopoll;

  /**
   * @param iopoll IORING_SETUP_IOPOLL
   */
  public IoRw(IoRingCtx ring, boolean iopoll) {
    this.ring = ring;
    this.iopoll = iopoll;
  }

  /**
   * IOCB_ALLOC_CACHE of a ring's reads, which lets their bios come from the per-CPU bio cache:
   * {@code io_rw_init_file} sets it on an IOPOLL ring (5.16), whose bios are put in task context;
   * with the 6.2 series that lets interrupt completions put bios back too ({@code bioCacheIrqList},
   * patch bio-cache-irq-list), on every read.
   */
  public static boolean allocCache(boolean iopoll, boolean bioCacheIrqList) {
    return iopoll || bioCacheIrqList;
  }

  /**
   * {@code __blkdev_direct_IO_async}'s set-up of {@code req}'s bio: its range, its owner ({@code
   * dio->iocb}), {@code bio_set_polled} on an IOPOLL ring (REQ_POLLED, with REQ_NOWAIT), REQ_NOWAIT
   * for io_uring's inline issue ({@code nowait}; io-wq's has none), and {@code kiocb->private}, the
   * bio polling looks at. On a queue without QUEUE_FLAG_POLL ({@code queuePolls} false) {@code
   * submit_bio_noacct} then clears the polling ({@code bio_clear_polled}, which also takes the bio
   * off the per-CPU cache): it goes to a default queue and ends by its interrupt, keeping the
   * REQ_NOWAIT {@code bio_set_polled} gave it, so that io-wq's reissue retries too.
   *
   * @return whether it is submitted polled, to the CPU's HCTX_TYPE_POLL queue
   */
  public static boolean blkdevDirectIoAsync(
      Bio bio, IoKiocb req, boolean iopoll, boolean nowait, boolean queuePolls) {
    bio.setRange(req.sqe().off() >> 9, req.sqe().len());
    bio.setOwner(req);
    if (iopoll) {
      bio.setPolled();
    }
    if (nowait) {
      bio.setNowait();
    }
    req.setKiocbPrivate(bio);
    if (iopoll && !queuePolls) {
      bio.clearPolled();
      bio.setNowait();
      return false;
    }
    return iopoll;
  }

  /**
   * The requests of {@code reqs} that {@code io_read} reissues ({@code REQ_F_REISSUE}, io-wq's
   * work): those whose bio found no tag in this submission, its {@code wouldBlock} ({@code
   * bio_wouldblock_error} under REQ_NOWAIT). Not those whose bio's status says {@code -EAGAIN}: a
   * bio of the group that completed on another CPU's poll may have been put and handed out again
   * (and failed there) before {@code submit_bio} returned, so its status is no longer this
   * submission's; and a bio is matched by identity, not by equality.
   */
  public static List<IoKiocb> reissued(List<IoKiocb> reqs, List<Bio> wouldBlock) {
    if (wouldBlock.isEmpty()) {
      return List.of();
    }
    Set<Bio> failed = Collections.newSetFromMap(new IdentityHashMap<>());
    failed.addAll(wouldBlock);
    List<IoKiocb> punted = new ArrayList<>();
    for (IoKiocb req : reqs) {
      if (failed.contains(req.kiocbPrivate())) {
        punted.add(req);
      }
    }
    return punted;
  }

  /** The result a request completes with: its size, or the bio's error. */
  public static int res(Bio bio) {
    return bio.status() == 0 ? bio.sizeBytes() : bio.status();
  }

  /**
   * {@code ki_complete} of a request whose bio ended with {@code res}: {@code
   * io_complete_rw_iopoll} on an IOPOLL ring (the next {@code io_do_iopoll} finds it done), else
   * {@code io_complete_rw}, which queues task_work.
   *
   * @return the functions it ran, from {@code bio_endio} on, per bio
   */
  public KernelFn[] kiComplete(IoKiocb req, int res) {
    if (iopoll) {
      ring.completeRwIopoll(req, res);
    } else {
      ring.completeRw(req, res);
    }
    return endPath(iopoll);
  }

  /**
   * What {@code bi_end_io} runs up to a request's {@code ki_complete}, per bio, wherever the bio
   * ends (this ring's CPU or another's): the ring's setup chose it ({@code io_rw_init_file}), not
   * the CPU. On an IOPOLL ring {@code io_complete_rw_iopoll}, which only marks the request done;
   * else {@code io_complete_rw}, which queues task_work for the ring's task.
   */
  public static KernelFn[] endPath(boolean iopoll) {
    return iopoll ? END_IO_PATH : IRQ_END_PATH;
  }
}

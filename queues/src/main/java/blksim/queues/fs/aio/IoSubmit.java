package blksim.queues.fs.aio;

import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.Sqe;
import java.util.ArrayList;
import java.util.List;

/**
 * One task's {@code io_submit(2)} of libaio reads on its CPU (fs/aio.c 5.16; docs/kernel.md section
 * 11), t/io_uring's {@code -a1}: the syscall's own work ({@code lookup_ioctx}), then {@code
 * io_submit_one} of each iocb: {@code aio_get_req}, and {@code aio_read} down to {@code
 * blkdev_read_iter} and {@code __blkdev_direct_IO_async}, whose bio comes from the raw block
 * device's bio_set and is set up with neither REQ_POLLED nor REQ_NOWAIT. The bios go to {@code
 * submit_bio} under {@code blk_start_plug}'s plug, {@code nr_ios = 1}; a bio that ends in {@code
 * queue_rq} (irqmode 0 or 1) has {@code aio_complete_rw} post its event before {@code io_submit}
 * returns. Each method charges what the kernel runs there to the task's CPU and returns where the
 * path leaves fs/aio.c ({@link AioCall}).
 */
public final class IoSubmit {
  /** io_submit itself, per call. */
  public static final KernelFn[] IO_SUBMIT_PATH = syscallPath(KernelFn.IO_SUBMIT);

  /**
   * io_submit_one down to the bio's allocation, per iocb, with the RCU section of its {@code
   * ctx->reqs} get; fget, no registered file.
   */
  public static final KernelFn[] IO_SUBMIT_ONE_PATH = {
    KernelFn.IO_SUBMIT_ONE,
    KernelFn.RCU_READ_LOCK_AIO,
    KernelFn.RCU_READ_UNLOCK_AIO,
    KernelFn.FGET,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO
  };

  /**
   * A libaio syscall: the syscall, {@code fn}'s own work, and its three RCU sections:
   * lookup_ioctx's, the {@code ctx->users} tryget's inside it, and the put's.
   */
  static KernelFn[] syscallPath(KernelFn fn) {
    return new KernelFn[] {
      KernelFn.SYSCALL,
      fn,
      KernelFn.RCU_READ_LOCK_AIO,
      KernelFn.RCU_READ_LOCK_AIO,
      KernelFn.RCU_READ_UNLOCK_AIO,
      KernelFn.RCU_READ_UNLOCK_AIO,
      KernelFn.RCU_READ_LOCK_AIO,
      KernelFn.RCU_READ_UNLOCK_AIO
    };
  }

  /**
   * The plug's {@code nr_ios}: {@code io_submit} plugs more than {@code AIO_PLUG_THRESHOLD} (2)
   * iocbs with {@code blk_start_plug}, which is {@code blk_start_plug_nr_ios(plug, 1)}: {@code
   * nr_ios = 1}, so plug or none, each allocation is of one request.
   */
  public static final int PLUG_NR_IOS = 1;

  private final Charger charger;
  private final int cpu;
  private final KioCtx ctx;
  private final String name;

  /** The requests of the call in progress, from aio_get_req to their bios' set-up. */
  private List<AioKiocb> submitting = List.of();

  /**
   * @param charger the charger of the task's CPU, {@code cpu}
   * @param ctx the task's libaio context
   * @param name the task's CPU, for messages
   */
  public IoSubmit(Charger charger, int cpu, KioCtx ctx, String name) {
    this.charger = charger;
    this.cpu = cpu;
    this.ctx = ctx;
    this.name = name;
  }

  /**
   * io_submit of {@code iocbs} at {@code t}: the syscall's own work, then {@code io_submit_one} of
   * each, and a bio for each from the bio set; with none, it returns at once.
   */
  public AioCall ioSubmit(List<Sqe> iocbs, long t) {
    t += charge(IO_SUBMIT_PATH, 1);
    List<AioKiocb> reqs = new ArrayList<>(iocbs.size());
    for (Sqe iocb : iocbs) {
      reqs.add(ioSubmitOne(iocb));
    }
    if (reqs.isEmpty()) {
      return ioSubmitReturned(t);
    }
    t += charge(IO_SUBMIT_ONE_PATH, reqs.size());
    submitting = reqs;
    // aio_prep_rw sets no IOCB_ALLOC_CACHE: the bios come from the mempool, not a per-CPU cache
    return new AioCall.AllocBios(t, reqs.size(), false);
  }

  /**
   * {@code io_submit_one} of {@code iocb}: {@code aio_get_req} takes a request for it ({@link
   * KioCtx#getReq}).
   */
  AioKiocb ioSubmitOne(Sqe iocb) {
    return ctx.getReq(iocb);
  }

  /**
   * The call's bios, allocated, at {@code t}: {@link #blkdevDirectIoAsync} sets each up and takes
   * its user pages; then {@code submit_bio} of each under the plug ({@link #PLUG_NR_IOS}).
   */
  public AioCall.SubmitBios bioAllocated(List<Bio> bios, long t) {
    List<AioKiocb> reqs = submitting;
    submitting = List.of();
    for (int i = 0; i < bios.size(); i++) {
      blkdevDirectIoAsync(bios.get(i), reqs.get(i));
    }
    t += charge(IoRw.PAGES_PATH, bios.size());
    return new AioCall.SubmitBios(t, bios, reqs, PLUG_NR_IOS);
  }

  /**
   * {@code __blkdev_direct_IO_async}'s set-up of {@code bio} for {@code req}'s iocb: its range, and
   * {@code dio->iocb} the request's kiocb (the bio's owner here), which {@code
   * blkdev_bio_end_io_async} completes through {@code ki_complete}, {@code aio_complete_rw}. It
   * sets no flag: {@code aio_prep_rw} sets no {@code IOCB_HIPRI}, so the bio is not polled, and
   * t/io_uring's iocbs have no {@code RWF_NOWAIT}, so no {@code IOCB_NOWAIT} and no REQ_NOWAIT: one
   * that finds no tag sleeps for it.
   */
  public static void blkdevDirectIoAsync(Bio bio, AioKiocb req) {
    bio.setRange(req.iocb().off() >> 9, req.iocb().len());
    bio.setOwner(req);
  }

  /**
   * {@code submit_bio} of some of the call's bios returned at {@code t}: those that ended in {@code
   * queue_rq} ({@code ended}, irqmode 0 or 1) run their end_io, and {@code aio_complete_rw} posts
   * each one's event now; the others end by their timers' interrupts.
   *
   * @return when that is done
   * @throws InvariantBroken if a bio failed for want of a tag: without REQ_NOWAIT it sleeps instead
   */
  public long submitBioReturned(List<Bio> ended, List<Bio> wouldBlock, long t) {
    if (!wouldBlock.isEmpty()) {
      throw new InvariantBroken(name + ": an aio bio found no tag");
    }
    t += charge(AioKiocb.END_IO_PATH, ended.size());
    for (Bio bio : ended) {
      ctx.complete((AioKiocb) bio.owner(), IoRw.res(bio));
    }
    return t;
  }

  /** The last group's {@code submit_bio} returned at {@code t}: {@code io_submit} returns. */
  public AioCall.Return ioSubmitReturned(long t) {
    return new AioCall.Return(t);
  }

  private long charge(KernelFn[] fns, int calls) {
    return charger.charge(cpu, CpuTime.SUBMIT, fns, calls);
  }
}

package blksim.actors.cpu;

import blksim.config.CostProfile;
import blksim.queues.cost.CostStep;

/**
 * What a CPU's own code costs and the flags that choose its path.
 *
 * @param iopoll IORING_SETUP_IOPOLL; io_uring then also sets IOCB_ALLOC_CACHE
 * @param registeredRing {@code -X1}: no fdget/fdput per io_uring_enter
 * @param nrVecs vecs each bio needs (0 for a registered buffer: the bio uses its bvec)
 * @param pollHctx the hardware queue this CPU's polled bios go to
 */
public record CpuSteps(
    boolean iopoll,
    boolean registeredRing,
    int nrVecs,
    int pollHctx,
    CostStep prep,
    CostStep reap,
    CostStep enter,
    CostStep fdget,
    CostStep submitSqe,
    CostStep directIo,
    CostStep other,
    CostStep getPages,
    CostStep endIo,
    CostStep fillCqe) {

  public static CpuSteps of(
      CostProfile p, boolean iopoll, boolean registeredRing, int nrVecs, int pollHctx) {
    return new CpuSteps(
        iopoll,
        registeredRing,
        nrVecs,
        pollHctx,
        CostStep.of(p, "t_io_uring_prep"),
        CostStep.of(p, "t_io_uring_reap"),
        CostStep.of(p, "io_uring_enter"),
        CostStep.of(p, "fdget_fdput"),
        CostStep.of(p, "io_submit_sqe"),
        CostStep.of(p, "blkdev_direct_IO"),
        CostStep.of(p, "other"),
        CostStep.of(p, "bio_iov_iter_get_pages"),
        CostStep.of(p, "blkdev_bio_end_io_async"),
        CostStep.of(p, "io_fill_cqe"));
  }
}

package blksim.actors.cpu;

/**
 * What a CPU's path depends on besides costs.
 *
 * @param iopoll IORING_SETUP_IOPOLL ({@code -p1}); io_uring then also sets IOCB_ALLOC_CACHE
 * @param nrVecs vecs each bio needs (0 for a registered buffer, whose bvec the bio uses)
 * @param pollHctx the hardware queue this CPU's polled bios go to (HCTX_TYPE_POLL)
 * @param defaultHctx the hardware queue of its other reads (HCTX_TYPE_READ falls back to DEFAULT)
 * @param oDirect the file is open with O_DIRECT ({@code -O1})
 */
public record CpuConfig(
    boolean iopoll, int nrVecs, int pollHctx, int defaultHctx, boolean oDirect) {}

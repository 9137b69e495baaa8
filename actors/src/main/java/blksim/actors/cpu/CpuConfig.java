package blksim.actors.cpu;

import java.util.List;

/**
 * What a CPU's path depends on besides costs.
 *
 * @param submitter the index of the t/io_uring thread this CPU runs
 * @param iopoll IORING_SETUP_IOPOLL ({@code -p1}); io_uring then also sets IOCB_ALLOC_CACHE
 * @param nrVecs vecs each bio needs (0 for a registered buffer, whose bvec the bio uses)
 * @param pollHctx the hardware queue of each device that this CPU's polled bios go to
 *     (HCTX_TYPE_POLL)
 * @param defaultHctx the hardware queue of its other reads (HCTX_TYPE_READ falls back to DEFAULT)
 * @param oDirect the files are open with O_DIRECT ({@code -O1})
 * @param fileDevices the device of each of the submitter's files, by file number
 * @param hctxPerDevice hardware queues of each device: the stride of the flat hctx list
 * @param allocCache IOCB_ALLOC_CACHE: io_uring sets it on IOPOLL rings (5.16), or on every read
 *     (6.2+, patch bio-cache-irq-list)
 */
public record CpuConfig(
    int submitter,
    boolean iopoll,
    int nrVecs,
    int pollHctx,
    int defaultHctx,
    boolean oDirect,
    List<Integer> fileDevices,
    int hctxPerDevice,
    boolean allocCache) {

  public CpuConfig {
    fileDevices = List.copyOf(fileDevices);
  }

  /**
   * Index in the flat list of every device's hardware queues of where file {@code fileno}'s bios
   * go.
   */
  public int hctxOf(int fileno) {
    return fileDevices.get(fileno) * hctxPerDevice + (iopoll ? pollHctx : defaultHctx);
  }
}

package blksim.actors.cpu;

import blksim.actors.block.Disk;
import java.util.List;

/**
 * What a CPU's path depends on besides costs.
 *
 * @param submitter the index of the t/io_uring thread this CPU runs
 * @param iopoll IORING_SETUP_IOPOLL ({@code -p1}, but not with {@code -N1}); io_uring then also
 *     sets IOCB_ALLOC_CACHE
 * @param nrVecs vecs each bio needs (0 for a registered buffer, whose bvec the bio uses)
 * @param oDirect the files are open with O_DIRECT ({@code -O1})
 * @param files the disk of each of the submitter's files, by file number
 * @param allocCache IOCB_ALLOC_CACHE: io_uring sets it on IOPOLL rings (5.16), or on every read
 *     (6.2+, patch bio-cache-irq-list)
 * @param nop {@code -N1}: the thread submits IORING_OP_NOPs, which complete at issue
 * @param syncIo {@code -S1}: the thread reads with preadv2, no ring
 * @param hipri {@code -p1} as preadv2's RWF_HIPRI (a sync read polls its own bio)
 */
public record CpuConfig(
    int submitter,
    boolean iopoll,
    int nrVecs,
    boolean oDirect,
    List<Disk> files,
    boolean allocCache,
    boolean nop,
    boolean syncIo,
    boolean hipri) {

  public CpuConfig {
    files = List.copyOf(files);
  }

  /** The disk file {@code fileno} is open on. */
  public Disk disk(int fileno) {
    return files.get(fileno);
  }
}

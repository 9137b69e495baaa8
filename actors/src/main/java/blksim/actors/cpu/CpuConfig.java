package blksim.actors.cpu;

import blksim.actors.block.Disk;
import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.Patch;
import blksim.queues.io_uring.IoRw;
import blksim.queues.tiouring.SubmitterFn;
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
 * @param engine how the thread submits: io_uring reads, nops ({@code -N1}), preadv2 ({@code -S1})
 *     or libaio ({@code -a1})
 * @param hipri {@code -p1} as preadv2's RWF_HIPRI (a sync read polls its own bio)
 */
public record CpuConfig(
    int submitter,
    boolean iopoll,
    int nrVecs,
    boolean oDirect,
    List<Disk> files,
    boolean allocCache,
    SubmitterFn engine,
    boolean hipri) {

  public CpuConfig {
    files = List.copyOf(files);
  }

  public boolean nop() {
    return engine == SubmitterFn.NOP;
  }

  public boolean syncIo() {
    return engine == SubmitterFn.PREADV2;
  }

  public boolean aio() {
    return engine == SubmitterFn.AIO;
  }

  /** The disk file {@code fileno} is open on. */
  public Disk disk(int fileno) {
    return files.get(fileno);
  }

  /** Thread {@code t}'s configuration, from the settings: its files' disks among it. */
  public static CpuConfig of(BlksimSettings s, int t, List<Disk> files) {
    IoUringSettings u = s.ioUring();
    SubmitterFn engine = SubmitterFn.of(u);
    boolean iopoll = engine.iopoll(u);
    return new CpuConfig(
        t,
        iopoll,
        engine.nrVecs(u),
        u.oDirect(),
        files,
        IoRw.allocCache(iopoll, s.kernel().has(Patch.BIO_CACHE_IRQ_LIST)),
        engine,
        u.polled());
  }
}

package blksim.actors.cpu;

import blksim.actors.block.Disk;
import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.Patch;
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
    Engine engine,
    boolean hipri) {

  /** t/io_uring's loops: its {@code Engine=} line, and {@code -N1}. */
  public enum Engine {
    IO_URING,
    NOP,
    PREADV2,
    AIO
  }

  public CpuConfig {
    files = List.copyOf(files);
  }

  public boolean nop() {
    return engine == Engine.NOP;
  }

  public boolean syncIo() {
    return engine == Engine.PREADV2;
  }

  public boolean aio() {
    return engine == Engine.AIO;
  }

  /** The disk file {@code fileno} is open on. */
  public Disk disk(int fileno) {
    return files.get(fileno);
  }

  /**
   * Pages of user memory an I/O covers: t/io_uring's buffers are page-aligned ({@code
   * posix_memalign} of the page size), so a block of {@code bs} bytes spans {@code bs / 4096}
   * pages, rounded up.
   */
  public static int pagesPerIo(IoUringSettings u) {
    return (u.blockSize() + 4095) / 4096;
  }

  /** Which of t/io_uring's loops the threads run: use_sync before aio, aio before the ring. */
  public static Engine engine(IoUringSettings u) {
    if (u.syncIo()) {
      return Engine.PREADV2;
    }
    if (u.aio()) {
      return Engine.AIO;
    }
    return u.nop() ? Engine.NOP : Engine.IO_URING;
  }

  /**
   * Whether the reads use registered buffers: only io_uring's (setup_aio turns fixedbufs off, and
   * preadv2 reads into user memory).
   */
  public static boolean fixedBuffers(IoUringSettings u) {
    return u.fixedBuffers() && engine(u) == Engine.IO_URING;
  }

  /** Thread {@code t}'s configuration, from the settings: its files' disks among it. */
  public static CpuConfig of(BlksimSettings s, int t, List<Disk> files) {
    IoUringSettings u = s.ioUring();
    Engine engine = engine(u);
    // t/io_uring sets up IOPOLL only for reads through a ring (polled && !do_nop)
    boolean iopoll = u.polled() && engine == Engine.IO_URING;
    return new CpuConfig(
        t,
        iopoll,
        fixedBuffers(u) ? 0 : pagesPerIo(u),
        u.oDirect(),
        files,
        iopoll || s.kernel().has(Patch.BIO_CACHE_IRQ_LIST),
        engine,
        u.polled());
  }
}

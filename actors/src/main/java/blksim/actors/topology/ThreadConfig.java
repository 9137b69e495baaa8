package blksim.actors.topology;

import blksim.actors.block.Disk;
import blksim.actors.cpu.CpuConfig;
import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.Patch;
import java.util.List;

/** What each t/io_uring thread's path needs to know, from the settings. */
final class ThreadConfig {
  private ThreadConfig() {}

  /**
   * Pages of user memory an I/O covers: t/io_uring's buffers are page-aligned ({@code
   * posix_memalign} of the page size), so a block of {@code bs} bytes spans {@code bs / 4096}
   * pages, rounded up.
   */
  static int pagesPerIo(IoUringSettings u) {
    return (u.blockSize() + 4095) / 4096;
  }

  /** Which of t/io_uring's loops the threads run: use_sync before aio, aio before the ring. */
  static CpuConfig.Engine engine(IoUringSettings u) {
    if (u.syncIo()) {
      return CpuConfig.Engine.PREADV2;
    }
    if (u.aio()) {
      return CpuConfig.Engine.AIO;
    }
    return u.nop() ? CpuConfig.Engine.NOP : CpuConfig.Engine.IO_URING;
  }

  /**
   * Whether the reads use registered buffers: only io_uring's (setup_aio turns fixedbufs off, and
   * preadv2 reads into user memory).
   */
  static boolean fixedBuffers(IoUringSettings u) {
    return u.fixedBuffers() && engine(u) == CpuConfig.Engine.IO_URING;
  }

  /** Thread {@code t}'s configuration: its files' disks among it. */
  static CpuConfig of(BlksimSettings s, int t, List<Disk> files) {
    IoUringSettings u = s.ioUring();
    CpuConfig.Engine engine = engine(u);
    // t/io_uring sets up IOPOLL only for reads through a ring (polled && !do_nop)
    boolean iopoll = u.polled() && engine == CpuConfig.Engine.IO_URING;
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

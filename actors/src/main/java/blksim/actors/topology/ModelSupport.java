package blksim.actors.topology;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.IoUringSettings;
import blksim.config.NullBlkSettings;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the model can run today. Everything else is refused up front with one line that says what is
 * not modelled yet, rather than run wrongly.
 */
final class ModelSupport {
  private ModelSupport() {}

  private static final Pattern NULLB = Pattern.compile("/dev/nullb(\\d+)");

  /** The largest block size sent as one bio (below null_blk's default max_sectors of 255). */
  static final int MAX_BLOCK_SIZE = 65536;

  /**
   * Checks the settings.
   *
   * @return the null_blk index of the one file
   * @throws ConfigError naming the first setting that cannot be run
   */
  static int check(BlksimSettings s) {
    IoUringSettings u = s.ioUring();
    NullBlkSettings n = s.nullBlk();
    unsupported(
        u.threads() != 1, "-n " + u.threads() + ": more than one submitter thread (and CPU)");
    unsupported(
        !u.polled() && n.irqmode() == NullBlkSettings.IrqMode.TIMER,
        "-p0 with null_blk irqmode=2: completion by timer, and a submitter sleeping for it,");
    unsupported(!u.oDirect() && !u.polled(), "-O0 -p0: buffered I/O through the page cache");
    unsupported(u.nop(), "-N1: IORING_OP_NOP requests");
    unsupported(u.aio(), "-a1: legacy libaio");
    unsupported(u.syncIo(), "-S1: synchronous preadv2");
    unsupported(u.passthrough(), "-u1: NVMe passthrough");
    unsupported(!u.hugetlbPath().isEmpty(), "-H " + u.hugetlbPath() + ": hugetlbfs buffers");
    unsupported(u.files().size() > 1, u.files().size() + " files: several files per submitter");
    unsupported(
        n.queueMode() != 2,
        "null_blk queue_mode=" + n.queueMode() + ": only queue_mode=2 (blk-mq)");
    unsupported(
        u.polled() && n.pollQueues() == 0,
        "null_blk poll_queues=0 with -p1: polled bios to a queue without poll support complete by interrupt");
    int device = device(u.files().get(0), n.nrDevices());
    if (u.blockSize() % n.bs() != 0) {
      throw new ConfigError(
          "-b "
              + u.blockSize()
              + ": O_DIRECT reads of "
              + u.files().get(0)
              + " must be a multiple of its logical block size, "
              + n.bs()
              + " bytes (the kernel answers EINVAL)");
    }
    unsupported(
        u.blockSize() > MAX_BLOCK_SIZE,
        "-b " + u.blockSize() + ": bios larger than " + MAX_BLOCK_SIZE + " bytes (splitting)");
    if (u.depth() > n.hwQueueDepth()) {
      throw new ConfigError(
          "-d "
              + u.depth()
              + " is above null_blk hw_queue_depth="
              + n.hwQueueDepth()
              + ": tag exhaustion (REQ_NOWAIT, -EAGAIN, io-wq retry) is not modelled yet;"
              + " raise the depth with --null-blk 'hw_queue_depth="
              + u.depth()
              + "'");
    }
    return device;
  }

  private static int device(String file, int nrDevices) {
    Matcher m = NULLB.matcher(file);
    if (!m.matches() || Long.parseLong(m.group(1)) >= nrDevices) {
      throw new ConfigError(
          file
              + ": no such device: blksim models /dev/nullb0"
              + (nrDevices > 1 ? " to /dev/nullb" + (nrDevices - 1) : "")
              + " (null_blk nr_devices="
              + nrDevices
              + ")");
    }
    return Integer.parseInt(m.group(1));
  }

  private static void unsupported(boolean when, String what) {
    if (when) {
      throw new ConfigError(what + " is not modelled yet");
    }
  }
}

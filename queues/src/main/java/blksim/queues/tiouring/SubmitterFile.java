package blksim.queues.tiouring;

/**
 * Models t/io_uring's {@code struct file}: one opened file of a submitter, its size in blocks, the
 * sequential cursor and the I/Os pending on it.
 */
final class SubmitterFile {
  final int fileno;
  final long maxBlocks;
  final long maxSize;
  long curOff;
  int pendingIos;

  /**
   * @param sizeBytes the device size (BLKGETSIZE64)
   * @param bs t/io_uring's block size
   */
  SubmitterFile(int fileno, long sizeBytes, int bs) {
    this.fileno = fileno;
    this.maxBlocks = sizeBytes / bs;
    this.maxSize = sizeBytes;
    if (maxBlocks <= 1) {
      throw new IllegalArgumentException(
          "Zero file/device size? " + sizeBytes + " bytes, bs " + bs);
    }
  }
}

package blksim.queues.tiouring;

import java.util.random.RandomGenerator;

/**
 * t/io_uring's choice of file and offset for each read ({@code get_next_file}, {@code get_offset}),
 * and each file's pending count, shared by its io_uring, aio and sync loops.
 */
final class FileCursor {
  private final SubmitterFile[] files;
  private final RandomGenerator rand;
  private final boolean randomIo;
  private final int bs;
  private final int depth;
  private int curFile;

  FileCursor(long[] fileSizes, int bs, int depth, boolean randomIo, RandomGenerator rand) {
    this.files = new SubmitterFile[fileSizes.length];
    for (int i = 0; i < fileSizes.length; i++) {
      files[i] = new SubmitterFile(i, fileSizes[i], bs);
    }
    this.rand = rand;
    this.randomIo = randomIo;
    this.bs = bs;
    this.depth = depth;
  }

  /** {@code get_next_file}: the file of the next read, its pending count raised. */
  SubmitterFile next() {
    SubmitterFile f = files[0];
    if (files.length > 1) {
      f = files[curFile];
      if (f.pendingIos >= fileDepth()) {
        curFile = (curFile + 1) % files.length;
        f = files[curFile];
      }
    }
    f.pendingIos++;
    return f;
  }

  /** A read of file {@code fileno} was reaped. */
  void reaped(int fileno) {
    files[fileno].pendingIos--;
  }

  /** {@code get_offset}: random over the file's blocks, or sequential wrapping at its end. */
  long offset(SubmitterFile f) {
    if (randomIo) {
      return Long.remainderUnsigned(rand.nextLong(), f.maxBlocks - 1) * bs;
    }
    long off = f.curOff;
    f.curOff += bs;
    if (f.curOff + bs > f.maxSize) {
      f.curOff = 0;
    }
    return off;
  }

  private int fileDepth() {
    return (depth + files.length - 1) / files.length;
  }
}

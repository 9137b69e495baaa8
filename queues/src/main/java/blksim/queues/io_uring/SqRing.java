package blksim.queues.io_uring;

import blksim.queues.books.Books;

/**
 * Models the io_uring submission queue ring ({@code struct io_uring_sq} of liburing; {@code
 * io_rings.sq} in the kernel). User space claims entries at {@code sqeTail} and publishes them by
 * moving {@code ktail}; the kernel consumes them at {@code khead}. Sequences are free-running
 * {@code long}s; an entry lives at {@code seq & ringMask}; the ring is full when {@code sqeTail -
 * khead == ringEntries}. A full ring refuses a claim instead of overwriting.
 */
public final class SqRing {
  private final int ringEntries;
  private final int ringMask;
  private final Sqe[] sqes;
  private long khead;
  private long ktail;
  private long sqeTail;
  private long kdropped;

  /**
   * @param ringEntries a power of two
   */
  public SqRing(int ringEntries) {
    this.ringMask = Ring.mask(ringEntries);
    this.ringEntries = ringEntries;
    this.sqes = new Sqe[ringEntries];
  }

  /** User space: writes an SQE into the next free entry; false if the ring is full. */
  public boolean tryClaim(Sqe sqe) {
    if (sqeTail - khead == ringEntries) {
      return false;
    }
    sqes[(int) (sqeTail & ringMask)] = sqe;
    sqeTail++;
    return true;
  }

  /** User space: true when every entry is claimed and not yet consumed by the kernel. */
  public boolean full() {
    return sqeTail - khead == ringEntries;
  }

  /** User space: makes every claimed SQE visible to the kernel (the store-release of the tail). */
  public void publish() {
    ktail = sqeTail;
  }

  /** Kernel: published SQEs not consumed yet. */
  public int pending() {
    return (int) (ktail - khead);
  }

  /** Kernel: consumes the next published SQE, or returns null if there is none. */
  public Sqe consume() {
    if (khead == ktail) {
      return null;
    }
    int i = (int) (khead & ringMask);
    Sqe sqe = sqes[i];
    sqes[i] = null;
    khead++;
    return sqe;
  }

  /** Kernel: drops an invalid SQE, as io_submit_sqes does, counting it in {@code kdropped}. */
  public void drop() {
    if (consume() != null) {
      kdropped++;
    }
  }

  public int ringEntries() {
    return ringEntries;
  }

  public long khead() {
    return khead;
  }

  public long ktail() {
    return ktail;
  }

  public long sqeTail() {
    return sqeTail;
  }

  public long kdropped() {
    return kdropped;
  }

  /**
   * Checks that the sequences are in order: {@code khead <= ktail <= sqeTail <= khead +
   * ringEntries}. SQEs still published but not consumed are not a violation: t/io_uring may end
   * with SQEs it never submitted.
   */
  public void audit(Books books, String name) {
    books.check(
        khead <= ktail && ktail <= sqeTail && sqeTail - khead <= ringEntries,
        name
            + ": SQ ring out of order (khead "
            + khead
            + ", ktail "
            + ktail
            + ", sqe_tail "
            + sqeTail
            + ")");
  }
}

package blksim.queues.io_uring;

import blksim.queues.books.Books;

/**
 * Models the io_uring completion queue ring ({@code struct io_uring_cq}). The kernel posts CQEs at
 * {@code ktail}; user space reaps them at {@code khead}. A post into a full ring is refused and
 * counted in {@code koverflow}: the kernel then keeps the CQE on its overflow list (see {@link
 * IoRingCtx}) until user space makes room.
 */
public final class CqRing {
  private final int ringEntries;
  private final int ringMask;
  private final Cqe[] cqes;
  private long khead;
  private long ktail;
  private long koverflow;

  /**
   * @param ringEntries a power of two
   */
  public CqRing(int ringEntries) {
    this.ringMask = Ring.mask(ringEntries);
    this.ringEntries = ringEntries;
    this.cqes = new Cqe[ringEntries];
  }

  /** Kernel: posts a CQE; false if the ring is full. */
  public boolean tryPost(Cqe cqe) {
    if (ktail - khead == ringEntries) {
      return false;
    }
    cqes[(int) (ktail & ringMask)] = cqe;
    ktail++;
    return true;
  }

  /** CQEs posted and not reaped. */
  public int ready() {
    return (int) (ktail - khead);
  }

  /** User space: the {@code i}-th CQE from the head, without consuming it; null past the tail. */
  public Cqe peek(int i) {
    return khead + i < ktail ? cqes[(int) ((khead + i) & ringMask)] : null;
  }

  /** User space: consumes {@code n} CQEs (the store-release of the head). */
  public void advance(int n) {
    if (n < 0 || n > ktail - khead) {
      throw new IllegalArgumentException(
          "advance " + n + " with " + (ktail - khead) + " CQEs ready");
    }
    for (int i = 0; i < n; i++) {
      cqes[(int) (khead & ringMask)] = null;
      khead++;
    }
  }

  /** User space: takes the next CQE, or null if there is none. */
  public Cqe reap() {
    if (khead == ktail) {
      return null;
    }
    int i = (int) (khead & ringMask);
    Cqe cqe = cqes[i];
    cqes[i] = null;
    khead++;
    return cqe;
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

  /** Kernel: a CQE was lost for good. */
  public void overflowLost() {
    koverflow++;
  }

  public long koverflow() {
    return koverflow;
  }

  /** Checks that the sequences are in order: {@code khead <= ktail <= khead + ringEntries}. */
  public void audit(Books books, String name) {
    books.check(
        khead <= ktail && ktail - khead <= ringEntries,
        name + ": CQ ring out of order (khead " + khead + ", ktail " + ktail + ")");
  }
}

package blksim.queues.io_uring;

/**
 * A ring whose SQEs are 4 KiB reads, each taken off the SQ ring by {@code io_submit_sqes} as it is
 * made: the requests the tests of a request's path hand around.
 */
final class SubmittedReads {
  final SqRing sq;
  final IoRingCtx ring;

  SubmittedReads(int entries) {
    this.sq = new SqRing(entries);
    this.ring = new IoRingCtx(sq, new CqRing(entries));
  }

  /** A 4 KiB read at {@code off}, submitted: its {@code io_kiocb}. */
  IoKiocb read(long off) {
    sq.tryClaim(new Sqe(Sqe.IORING_OP_READ, 0, 0, off, 4096, 0, 0));
    sq.publish();
    return ring.submitSqe();
  }
}

package blksim.queues.io_uring;

/**
 * Models {@code struct io_uring_sqe}: the fields t/io_uring fills for a read.
 *
 * @param opcode IORING_OP_*
 * @param flags IOSQE_* (IOSQE_FIXED_FILE)
 * @param fd file descriptor, or index into the registered files
 * @param off byte offset
 * @param len bytes
 * @param userData returned unchanged in the CQE (t/io_uring puts the file number there)
 * @param issuedAtPs blksim's tracer, not a kernel field: when user space wrote the SQE, for the
 *     submit-to-reap latency
 */
public record Sqe(
    int opcode, int flags, int fd, long off, int len, long userData, long issuedAtPs) {
  public static final int IORING_OP_NOP = 0;
  public static final int IORING_OP_READV = 1;
  public static final int IORING_OP_READ_FIXED = 4;
  public static final int IORING_OP_READ = 22;
  public static final int IOSQE_FIXED_FILE = 1;
}

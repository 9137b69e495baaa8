package blksim.queues.io_uring;

/**
 * Models {@code struct io_uring_cqe}.
 *
 * @param userData the SQE's user_data
 * @param res bytes transferred, or a negative errno
 * @param issuedAtPs blksim's tracer carried over from the SQE
 */
public record Cqe(long userData, int res, long issuedAtPs) {}

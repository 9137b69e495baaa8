package blksim.queues.fs.aio;

/**
 * Models {@code struct io_event}: what {@code aio_complete} writes to the ring.
 *
 * @param data the iocb's {@code aio_data} (t/io_uring puts the file number there)
 * @param res bytes read, or a negative errno
 * @param issuedAtPs blksim's tracer: when user space prepared the iocb
 */
public record IoEvent(long data, long res, long issuedAtPs) {}

package blksim.queues.io_uring;

/**
 * The arguments of one {@code io_uring_enter(2)} call (fs/io_uring.c, 5.16).
 *
 * @param toSubmit SQEs to submit ({@code to_submit})
 * @param toWait {@code min_complete}
 * @param getEvents whether IORING_ENTER_GETEVENTS is set (exactly when {@code toWait > 0})
 */
public record EnterArgs(int toSubmit, int toWait, boolean getEvents) {}

package blksim.queues.books;

/**
 * A broken invariant of the model: an I/O completed twice, a tag freed twice, a bio lost. The run
 * stops, and the command line prints the message as one line and exits with status 3.
 */
public final class InvariantBroken extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvariantBroken(String message) {
    super(message, null, false, false);
  }
}

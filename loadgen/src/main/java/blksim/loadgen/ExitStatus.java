package blksim.loadgen;

/** The exit statuses of blksim, a closed set. */
public enum ExitStatus {
  /** The run completed and its books balanced. */
  OK(0),
  /** blksim itself failed: a bug, reported on one line. */
  INTERNAL(1),
  /** Bad input: a flag, key, value or parameter; one line names it. */
  USAGE(2),
  /** The end-of-run books did not balance, or an invariant broke during the run. */
  BOOKS(3),
  /** {@code blksim fuzz} found a case that fails an oracle; its summary names it, shrunk. */
  FOUND(4);

  private final int code;

  ExitStatus(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }
}

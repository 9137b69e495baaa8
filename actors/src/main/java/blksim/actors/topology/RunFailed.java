package blksim.actors.topology;

import blksim.actors.engine.RunAborted;

/**
 * A run that ended early ({@link RunAborted}), with what its components held at that point: the
 * histograms so far and the books, which then name what was left in flight.
 */
public final class RunFailed extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient RunResult partial;

  RunFailed(RunAborted cause, RunResult partial) {
    super(cause.getMessage(), cause);
    this.partial = partial;
  }

  public RunAborted aborted() {
    return (RunAborted) getCause();
  }

  /** What ran before the run ended. */
  public RunResult partial() {
    return partial;
  }
}

package blksim.queues.books;

import java.util.ArrayList;
import java.util.List;

/**
 * The end-of-run books: every model part checks its own invariants into one of these, and a run
 * whose books do not balance ends with the first violation named on one line.
 *
 * <p>Two kinds of check: those that hold after every delivery ({@link #check}, {@link #checkEqual}:
 * a CQ ring in order, a bio counted in exactly one place), and those that hold only once every I/O
 * has drained ({@link #drained}, {@link #drainedEqual}, {@link #held}: no tag held, every request
 * back). The books of a run cut short with I/Os still in flight ({@link #cutShort()}) keep the
 * first kind as violations and the second as what was left in flight.
 */
public final class Books {
  private final boolean cut;
  private final List<String> violations = new ArrayList<>();
  private final List<String> leftInFlight = new ArrayList<>();

  /** The books of a run that drained: every check must hold. */
  public Books() {
    this(false);
  }

  private Books(boolean cut) {
    this.cut = cut;
  }

  /**
   * The books of a run whose drain was cut short (a signal, then no end in sight): the checks that
   * need a drain record what was left in flight instead of a violation.
   */
  public static Books cutShort() {
    return new Books(true);
  }

  /** Records {@code what} as a violation unless {@code ok}: a check that holds at every step. */
  public void check(boolean ok, String what) {
    if (!ok) {
      violations.add(what);
    }
  }

  /** Records that {@code expected} equals {@code actual}, naming both if not. */
  public void checkEqual(long expected, long actual, String what) {
    if (expected != actual) {
      violations.add(what + " (expected " + expected + ", found " + actual + ")");
    }
  }

  /** A check that holds once every I/O has drained: {@code what} unless {@code ok}. */
  public void drained(boolean ok, String what) {
    if (!ok) {
      (cut ? leftInFlight : violations).add(what);
    }
  }

  /** Two counts that match once every I/O has drained, {@code expected} against {@code actual}. */
  public void drainedEqual(long expected, long actual, String what) {
    if (expected != actual) {
      drained(false, what + " (expected " + expected + ", found " + actual + ")");
    }
  }

  /**
   * {@code held} things still taken, none once every I/O has drained; fewer than none is a
   * violation in any run.
   */
  public void held(long held, String what) {
    if (held < 0) {
      checkEqual(0, held, what);
    } else {
      drainedEqual(0, held, what);
    }
  }

  public boolean balanced() {
    return violations.isEmpty();
  }

  public List<String> violations() {
    return List.copyOf(violations);
  }

  /** Whether these are the books of a run cut short with I/Os in flight. */
  public boolean cut() {
    return cut;
  }

  /** The checks of a drained run that a cut run did not meet: what its I/Os in flight held. */
  public List<String> leftInFlight() {
    return List.copyOf(leftInFlight);
  }
}

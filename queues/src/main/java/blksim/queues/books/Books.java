package blksim.queues.books;

import java.util.ArrayList;
import java.util.List;

/**
 * The end-of-run books: every model part checks its own invariants into one of these, and a run
 * whose books do not balance ends with the first violation named on one line.
 */
public final class Books {
  private final List<String> violations = new ArrayList<>();

  /** Records {@code what} as a violation unless {@code ok}. */
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

  public boolean balanced() {
    return violations.isEmpty();
  }

  public List<String> violations() {
    return List.copyOf(violations);
  }
}

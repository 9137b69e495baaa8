package blksim.actors.engine;

import blksim.queues.time.VirtualTime;

/**
 * A run that could not go on: a component threw, virtual time stopped advancing, or the actor
 * system stopped under the run. Its message is one line naming the component and the cause.
 */
public final class RunAborted extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why the run ended early. */
  public enum Reason {
    /** A component threw while it handled a message: a bug of the model. */
    COMPONENT_FAILED,
    /** Messages kept being delivered at one instant: a loop that costs no virtual time. */
    TIME_STUCK,
    /** The engine itself failed (the actor system stopped, a dispatcher could not start). */
    ENGINE_FAILED
  }

  private final Reason reason;
  private final String component;
  private final long atPs;

  private RunAborted(Reason reason, String component, long atPs, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
    this.component = component;
    this.atPs = atPs;
  }

  /** {@code component} threw {@code cause} while it handled a message due at {@code atPs}. */
  public static RunAborted componentFailed(String component, long atPs, Throwable cause) {
    return new RunAborted(
        Reason.COMPONENT_FAILED,
        component,
        atPs,
        component + " failed at " + at(atPs) + " of virtual time: " + describe(cause),
        cause);
  }

  /** {@code delivered} messages in a row were due at {@code atPs}, the last for {@code last}. */
  static RunAborted timeStuck(String last, long atPs, long delivered) {
    return new RunAborted(
        Reason.TIME_STUCK,
        last,
        atPs,
        "virtual time stopped advancing at "
            + at(atPs)
            + ": "
            + delivered
            + " messages in a row were due at that instant, the last for "
            + last,
        null);
  }

  /** The engine stopped before the run ended, with {@code cause} if it is known. */
  static RunAborted engineFailed(String what, Throwable cause) {
    return new RunAborted(
        Reason.ENGINE_FAILED,
        "engine",
        -1,
        "the engine failed: " + what + (cause == null ? "" : ": " + describe(cause)),
        cause);
  }

  public Reason reason() {
    return reason;
  }

  /** The component that failed or last received a message. */
  public String component() {
    return component;
  }

  /** Virtual time of the failure, in ps; -1 if unknown. */
  public long atPs() {
    return atPs;
  }

  /** A throwable on one line: its kind in words and its message, no package names. */
  public static String describe(Throwable t) {
    String kind;
    if (t instanceof StackOverflowError) {
      kind = "stack overflow";
    } else if (t instanceof OutOfMemoryError) {
      kind = "out of memory";
    } else {
      kind = t.getClass().getSimpleName();
    }
    String m = t.getMessage();
    String line = m == null || m.isBlank() ? kind : kind + ": " + m;
    return line.replace('\n', ' ').replace('\r', ' ');
  }

  private static String at(long ps) {
    return VirtualTime.ns(ps) + " ns";
  }
}

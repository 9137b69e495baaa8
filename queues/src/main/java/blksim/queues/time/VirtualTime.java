package blksim.queues.time;

/**
 * Virtual time: a {@code long} count of picoseconds, so that sub-nanosecond costs add up exactly.
 * One virtual hour is 3.6e15 ps, far inside a long. Configuration and reports speak nanoseconds.
 */
public final class VirtualTime {
  private VirtualTime() {}

  public static final long PS_PER_NS = 1_000L;
  public static final long PS_PER_US = 1_000_000L;
  public static final long PS_PER_SEC = 1_000_000_000_000L;
  public static final long NS_PER_SEC = 1_000_000_000L;

  /** Nanoseconds to picoseconds. */
  public static long ps(long ns) {
    return Math.multiplyExact(ns, PS_PER_NS);
  }

  /** Picoseconds to whole nanoseconds, rounded down. */
  public static long ns(long ps) {
    return Math.floorDiv(ps, PS_PER_NS);
  }
}

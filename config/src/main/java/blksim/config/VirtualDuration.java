package blksim.config;

/** A duration in nanoseconds as a message writes it: in the largest unit that keeps it whole. */
public final class VirtualDuration {
  private VirtualDuration() {}

  public static String text(long ns) {
    if (ns == 0) {
      return "0";
    }
    long[] per = {3_600_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L};
    String[] unit = {"h", "s", "ms", "us", "ns"};
    for (int i = 0; i < per.length; i++) {
      if (ns % per[i] == 0) {
        return ns / per[i] + unit[i];
      }
    }
    return ns + "ns";
  }
}

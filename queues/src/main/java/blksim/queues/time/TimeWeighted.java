package blksim.queues.time;

/**
 * A quantity that holds a value over virtual time (a queue depth, tags in use), integrated so its
 * time-weighted mean can be reported; the maximum is kept too.
 */
public final class TimeWeighted {
  private long value;
  private long max;
  private long sincePs;
  private long firstPs = -1;
  private double integral;

  /** Sets the value from {@code atPs} on. */
  public void set(long atPs, long newValue) {
    if (firstPs < 0) {
      firstPs = atPs;
    } else {
      integral += (double) value * (atPs - sincePs);
    }
    sincePs = atPs;
    value = newValue;
    max = Math.max(max, newValue);
  }

  /** Changes the value by {@code delta} from {@code atPs} on. */
  public void add(long atPs, long delta) {
    set(atPs, value + delta);
  }

  /** The mean over [{@code 0}, {@code endPs}]. */
  public double mean(long endPs) {
    if (endPs <= 0 || firstPs < 0) {
      return 0;
    }
    return (integral + (double) value * (endPs - sincePs)) / endPs;
  }

  public long max() {
    return max;
  }

  public long value() {
    return value;
  }
}

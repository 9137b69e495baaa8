package blksim.queues.tiouring;

/**
 * I/Os between their stamp in user space and their reap, over time: the ground truth that the
 * latency histogram must agree with (Little's law), kept apart from fio's {@code s->inflight}. Kept
 * as exact sums: the time reaped I/Os spent in flight, and the stamps of those still out.
 */
final class InFlightClock {
  private long reapedInFlightPs;
  private long outStampSumPs;
  private long outCount;

  /** An I/O was stamped at {@code stampPs}. */
  void stamped(long stampPs) {
    outStampSumPs += stampPs;
    outCount++;
  }

  /** The I/O stamped at {@code stampPs} was reaped at {@code reapedAtPs}. */
  void reaped(long stampPs, long reapedAtPs) {
    reapedInFlightPs += reapedAtPs - stampPs;
    outStampSumPs -= stampPs;
    outCount--;
  }

  /** I/Os stamped and not yet reaped, time-weighted mean over [0, {@code endPs}]. */
  double mean(long endPs) {
    if (endPs <= 0) {
      return 0;
    }
    return (reapedInFlightPs + (double) outCount * endPs - outStampSumPs) / endPs;
  }

  /** I/Os stamped and not yet reaped. */
  long out() {
    return outCount;
  }
}

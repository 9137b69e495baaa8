package blksim.actors.tiouring;

import java.util.List;
import org.HdrHistogram.Histogram;

/** Where t/io_uring's main thread reports: the status lines and the end of the run. */
public interface StatusSink {
  /**
   * The counters of all submitters over one status interval.
   *
   * @param index 1 for the first interval
   * @param startPs start of the interval, virtual time
   * @param endPs end of the interval
   * @param done increase of {@code s->done} (SQEs accepted by io_uring_enter) summed over
   *     submitters
   * @param calls increase of {@code s->calls} (io_uring_enter calls)
   * @param reaps increase of {@code s->reaps} (CQEs reaped)
   * @param doneBySubmitter the increase of {@code done} of each submitter, by index
   * @param latencyBySubmitter the latencies each submitter reaped in the interval, by index, when
   *     the sink {@link #wantsIntervalLatency() wants them}; else empty
   */
  record Interval(
      int index,
      long startPs,
      long endPs,
      long done,
      long calls,
      long reaps,
      List<Long> doneBySubmitter,
      List<Histogram> latencyBySubmitter) {
    public Interval {
      doneBySubmitter = List.copyOf(doneBySubmitter);
      latencyBySubmitter = List.copyOf(latencyBySubmitter);
    }

    /** An interval without latencies. */
    public Interval(
        int index,
        long startPs,
        long endPs,
        long done,
        long calls,
        long reaps,
        List<Long> doneBySubmitter) {
      this(index, startPs, endPs, done, calls, reaps, doneBySubmitter, List.of());
    }
  }

  /** Whether each interval should carry the latencies reaped in it (an interval log). */
  default boolean wantsIntervalLatency() {
    return false;
  }

  /** One status interval is over. */
  void interval(Interval interval);

  /** The runtime is over ({@code do_finish("timeout")}); submitters are told to finish. */
  void timeout(long atPs);

  /** A signal ended the run early; submitters are told to finish. */
  default void interrupted(long atPs) {}

  /** A submitter thread stopped on an error, having printed {@code lines}. */
  void threadExited(long atPs, List<String> lines);
}

package blksim.loadgen.report;

import blksim.actors.topology.RunResult;
import blksim.config.BlksimSettings;
import blksim.queues.time.VirtualTime;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * A finished run and the figures every report takes from it.
 *
 * @param lines the status intervals printed
 * @param wallNanos wall-clock time of the simulation, only for the last line
 * @param ending how the run ended: its runtime over, or early
 */
public record RunReport(
    BlksimSettings settings,
    RunResult result,
    List<StatusPrinter.Line> lines,
    long wallNanos,
    Ending ending) {

  /**
   * How a run ended.
   *
   * @param early null when the runtime ran out; else why it ended before: {@link #SIGNAL}, {@link
   *     #SIGNAL_CUT}, or the failure
   */
  public record Ending(String early) {
    public static final Ending COMPLETE = new Ending(null);

    /** A signal, after which the run drained its I/Os in flight. */
    public static final String SIGNAL = "signal";

    /** A signal, after which the drain was cut, its wall time up, with I/Os still in flight. */
    public static final String SIGNAL_CUT = "signal, drain cut";

    public boolean complete() {
      return early == null;
    }
  }

  /** A run that ran its whole runtime. */
  public RunReport(
      BlksimSettings settings, RunResult result, List<StatusPrinter.Line> lines, long wallNanos) {
    this(settings, result, lines, wallNanos, Ending.COMPLETE);
  }

  /**
   * Virtual time the load ran, in ns: the runtime, or until the run ended early (at least 1 ns).
   */
  public long ranNs() {
    return ending.complete()
        ? settings.run().runtimeNs()
        : Math.max(1, Math.min(settings.run().runtimeNs(), result.endPs() / VirtualTime.PS_PER_NS));
  }

  /**
   * Submissions per second of virtual time, over the runtime: what the status lines add up to; of a
   * run that ended early, every submission over the time it ran.
   */
  public long iops() {
    long done =
        ending.complete()
            ? lines.stream().mapToLong(StatusPrinter.Line::done).sum()
            : result.done();
    return done * VirtualTime.NS_PER_SEC / ranNs();
  }

  /** Submissions per second of virtual time of submitter {@code i}, over the runtime. */
  public long iops(int submitter) {
    long done =
        ending.complete()
            ? lines.stream().mapToLong(l -> l.doneBySubmitter().get(submitter)).sum()
            : result.submitters().get(submitter).done();
    return done * VirtualTime.NS_PER_SEC / ranNs();
  }

  /** Bytes per second; none for nops ({@code -N1}). */
  public long bwBytes() {
    return settings.ioUring().nop() ? 0 : iops() * settings.ioUring().blockSize();
  }

  /**
   * I/Os the kernel completed: reaped by user space, left in the CQ ring, or dropped at teardown.
   */
  public long completed() {
    return result.submitters().stream().mapToLong(RunResult.Submitter::completed).sum();
  }

  /** Reads the kernel took: SQEs, iocbs or preadv2 calls. */
  public long accepted() {
    return result.submitters().stream().mapToLong(RunResult.Submitter::accepted).sum();
  }

  /** Reads the kernel took and had not completed when the run was cut; 0 for a run that drained. */
  public long inFlight() {
    return accepted() - completed();
  }

  /** The value at each of t/io_uring's percentiles, in ns. */
  public long[] percentilesNs() {
    return percentilesNs(result.latencyNs());
  }

  /** The value at each of t/io_uring's percentiles of {@code h}, in ns. */
  public static long[] percentilesNs(Histogram h) {
    long[] v = new long[TIoUringFormat.PLIST.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(TIoUringFormat.PLIST[i]);
    }
    return v;
  }

  /** Value at {@code percentile}, in ns. */
  public long latencyNs(double percentile) {
    Histogram h = result.latencyNs();
    return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile);
  }

  /** Simulated I/Os completed per second of wall time. */
  public double simIosPerWallSec() {
    return wallNanos == 0 ? 0 : completed() * 1e9 / wallNanos;
  }
}

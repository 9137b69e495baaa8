package blksim.loadgen.report;

import blksim.actors.topology.RunResult;
import blksim.queues.time.VirtualTime;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * {@code latency.hlog}: HdrHistogram's interval log of submit-to-reap latency, written as each
 * status interval ends, stamped with virtual time in seconds from the start of the run. Each
 * interval has one untagged histogram of every submitter and one per submitter tagged with its CPU
 * ({@code cpu0}); the I/Os reaped after the last interval (the drain after the runtime) are a last
 * interval of their own. Values are nanoseconds: HdrHistogram's tools read them with {@code
 * -outputValueUnitRatio 1000} for microseconds.
 */
public final class IntervalLog implements AutoCloseable {
  /** Interval_Max in the log is in microseconds. */
  private static final double MAX_VALUE_UNIT_RATIO = 1000.0;

  private final PrintStream file;
  private final HistogramLogWriter writer;
  private final List<Integer> cpus;
  private final List<Histogram> logged = new ArrayList<>();
  private long lastEndPs;

  /**
   * @param cpus the CPU of each submitter, by index
   */
  IntervalLog(Path path, List<Integer> cpus) throws IOException {
    this.file = new PrintStream(path.toFile(), StandardCharsets.UTF_8);
    this.writer = new HistogramLogWriter(file);
    this.cpus = List.copyOf(cpus);
    for (int i = 0; i < cpus.size(); i++) {
      logged.add(new Histogram(3));
    }
    writer.outputComment(
        "blksim: submit-to-reap latency in ns per status interval of virtual time;"
            + " untagged: all submitters, tag cpuN: the submitter on CPU N");
    writer.outputLogFormatVersion();
    writer.outputBaseTime(0);
    writer.outputLegend();
  }

  /** Logs one status interval: the latencies each submitter reaped in it, by submitter index. */
  void interval(long startPs, long endPs, List<Histogram> bySubmitter) {
    write(startPs, endPs, bySubmitter);
    for (int i = 0; i < bySubmitter.size(); i++) {
      logged.get(i).add(bySubmitter.get(i));
    }
    lastEndPs = endPs;
  }

  /** Logs what was reaped after the last interval, and closes the log. */
  void finish(RunResult result) {
    List<Histogram> rest = new ArrayList<>();
    long count = 0;
    for (RunResult.Submitter sub : result.submitters()) {
      Histogram h = sub.latencyNs().copy();
      h.subtract(logged.get(sub.index()));
      rest.add(h);
      count += h.getTotalCount();
    }
    if (count > 0) {
      write(lastEndPs, Math.max(lastEndPs, result.endPs()), rest);
    }
    close();
  }

  private void write(long startPs, long endPs, List<Histogram> bySubmitter) {
    double start = startPs / (double) VirtualTime.PS_PER_SEC;
    double end = endPs / (double) VirtualTime.PS_PER_SEC;
    Histogram all = new Histogram(3);
    bySubmitter.forEach(all::add);
    writer.outputIntervalHistogram(start, end, all, MAX_VALUE_UNIT_RATIO);
    for (int i = 0; i < bySubmitter.size(); i++) {
      Histogram h = bySubmitter.get(i).copy();
      h.setTag("cpu" + cpus.get(i));
      writer.outputIntervalHistogram(start, end, h, MAX_VALUE_UNIT_RATIO);
    }
  }

  @Override
  public void close() {
    file.close();
  }
}

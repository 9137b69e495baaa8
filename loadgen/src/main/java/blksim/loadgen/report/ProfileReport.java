package blksim.loadgen.report;

import blksim.actors.topology.RunResult;
import blksim.queues.cost.CostLedger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time per I/O of each kernel function, all CPUs together, sorted like {@code perf report}: the
 * largest share first. Functions that cost nothing in a run are left out.
 */
public final class ProfileReport {
  private ProfileReport() {}

  /**
   * One function's line.
   *
   * @param nsPerIo CPU time per I/O completed, in ns
   * @param share of all CPU time
   * @param callsPerIo calls per I/O completed
   */
  public record Line(String function, double nsPerIo, double share, double callsPerIo) {}

  /** The lines of {@code r}, sorted by share, then name. */
  public static List<Line> lines(RunReport r) {
    RunResult res = r.result();
    Map<String, long[]> byFn = new TreeMap<>();
    for (int cpu : res.busyCpus()) {
      var kernel = r.settings().kernel();
      for (Map.Entry<String, CostLedger.Entry> e :
          res.ledger().steps(cpu, id -> id.symbol(kernel)).entrySet()) {
        long[] acc = byFn.computeIfAbsent(e.getKey(), k -> new long[2]);
        acc[0] += e.getValue().ps();
        acc[1] += e.getValue().calls();
      }
    }
    long totalPs = byFn.values().stream().mapToLong(a -> a[0]).sum();
    double ios = Math.max(1, r.completed());
    List<Line> lines = new ArrayList<>();
    for (Map.Entry<String, long[]> e : byFn.entrySet()) {
      long[] a = e.getValue();
      if (a[0] > 0) {
        lines.add(new Line(e.getKey(), a[0] / 1000.0 / ios, (double) a[0] / totalPs, a[1] / ios));
      }
    }
    lines.sort(Comparator.comparingDouble(Line::nsPerIo).reversed().thenComparing(Line::function));
    return lines;
  }

  /** CPU time per I/O of all functions, in ns. */
  public static double nsPerIo(List<Line> lines) {
    return lines.stream().mapToDouble(Line::nsPerIo).sum();
  }

  /** The report's text lines, indented by {@code indent}. */
  public static List<String> format(List<Line> lines, String indent) {
    List<String> out = new ArrayList<>();
    out.add(indent + "Overhead    ns/IO  calls/IO  Function");
    for (Line l : lines) {
      out.add(
          String.format(
              Locale.ROOT,
              "%s%7.2f%%  %7.2f  %8.3f  %s",
              indent,
              100 * l.share(),
              l.nsPerIo(),
              l.callsPerIo(),
              l.function()));
    }
    return out;
  }
}

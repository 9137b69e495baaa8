package blksim.loadgen.fuzz;

import blksim.loadgen.report.RunReport;
import java.util.ArrayList;
import java.util.List;

/**
 * What one run of a command line left: its exit status, what it printed, and, when it ran in this
 * JVM on this build, its report.
 *
 * @param exit the exit status
 * @param out standard output, without the last line ({@code wall ...}), the only one that may
 *     differ between two runs
 * @param err standard error
 * @param report the run's report, or null (a refused run, or another build)
 */
public record Outcome(int exit, String out, String err, RunReport report) {

  /** Builds an outcome from raw output, dropping the wall-time line. */
  static Outcome of(int exit, String rawOut, String err, RunReport report) {
    List<String> kept = new ArrayList<>();
    for (String line : rawOut.split("\n", -1)) {
      if (!line.startsWith("wall ")) {
        kept.add(line);
      }
    }
    return new Outcome(exit, String.join("\n", kept), err, report);
  }

  /** Whether {@code other} printed the same bytes and ended the same way. */
  public boolean sameBytes(Outcome other) {
    return exit == other.exit && out.equals(other.out) && err.equals(other.err);
  }

  /** The first line where {@code other} differs from this, for a failure's detail. */
  public String firstDifference(Outcome other) {
    if (exit != other.exit) {
      return "exit " + exit + " vs " + other.exit + firstLine(err + other.err);
    }
    String[] a = (out + "\n" + err).split("\n", -1);
    String[] b = (other.out + "\n" + other.err).split("\n", -1);
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      String x = i < a.length ? a[i] : "(none)";
      String y = i < b.length ? b[i] : "(none)";
      if (!x.equals(y)) {
        return "line " + (i + 1) + ": '" + x.strip() + "' vs '" + y.strip() + "'";
      }
    }
    return "no difference";
  }

  /** The first line of standard error, trimmed. */
  public String errLine() {
    return firstLine(err);
  }

  private static String firstLine(String s) {
    String t = s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl);
  }
}

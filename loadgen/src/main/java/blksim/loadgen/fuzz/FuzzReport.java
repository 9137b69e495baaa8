package blksim.loadgen.fuzz;

import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The summary of a fuzzing run: what ran, what was refused and why, what failed, shrunk. */
public final class FuzzReport {
  private FuzzReport() {}

  /** Prints {@code r}; the last line (wall time) is the only one that differs between two runs. */
  public static void print(Fuzzer.Result r, String check, PrintStream out) {
    out.printf(
        Locale.ROOT,
        "blksim fuzz: %d cases of seed %d (cases %d to %d), %s%n",
        r.count(),
        r.seed(),
        r.from(),
        r.from() + r.count() - 1,
        check);
    out.printf(Locale.ROOT, "  ran         %6d  %5.1f %%%n", r.ran(), pct(r.ran(), r.count()));
    if (!r.relations().isEmpty()) {
      StringBuilder b = new StringBuilder();
      r.relations()
          .forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
      out.println("  relations   checked: " + b);
    }
    out.printf(
        Locale.ROOT,
        "  refused     %6d  %5.1f %%, by reason (features not modelled yet, or values out of range):%n",
        r.refused(),
        pct(r.refused(), r.count()));
    sortedByCount(r.refusals())
        .forEach(e -> out.printf(Locale.ROOT, "      %6d  %s%n", e.getValue(), e.getKey()));
    out.printf(
        Locale.ROOT,
        "  failed      %6d  %5.1f %%%n",
        r.failures().size(),
        pct(r.failures().size(), r.count()));
    for (Fuzzer.Failure f : r.failures()) {
      out.printf(
          Locale.ROOT,
          "    case %d: %s: %s%n",
          f.index(),
          f.verdict().oracle(),
          f.verdict().detail());
      out.println("      generated: " + f.generated().commandLine());
      if (f.shrinkRuns() > 0) {
        out.printf(
            Locale.ROOT, "      shrunk (%d runs): %s%n", f.shrinkRuns(), f.shrunk().commandLine());
      }
    }
    out.println("  dimensions  share of the cases that give each option:");
    StringBuilder line = new StringBuilder("     ");
    for (Map.Entry<String, Long> e : sortedByCount(r.dimensions())) {
      String item =
          String.format(Locale.ROOT, " %s %.0f%%,", e.getKey(), pct(e.getValue(), r.count()));
      if (line.length() + item.length() > 100) {
        out.println(line);
        line = new StringBuilder("     ");
      }
      line.append(item);
    }
    out.println(line.substring(0, line.length() - 1));
    out.printf(Locale.ROOT, "wall %.1f s%n", r.wallNanos() / 1e9);
  }

  private static List<Map.Entry<String, Long>> sortedByCount(Map<String, Long> m) {
    return m.entrySet().stream()
        .sorted(
            Comparator.comparing(Map.Entry<String, Long>::getValue)
                .reversed()
                .thenComparing(Map.Entry::getKey))
        .toList();
  }

  private static double pct(long n, long of) {
    return of == 0 ? 0 : 100.0 * n / of;
  }
}

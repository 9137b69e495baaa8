package blksim.loadgen.perf;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pasted {@code perf diff} (docs/costs.md 2.2): Baseline, Delta or Delta Abs, Shared Object,
 * Symbol; a symbol new in the second run has no Baseline. Comments, callchains and prose are
 * skipped as in {@link PerfReport}.
 */
public record PerfDiff(List<PerfDiff.Line> lines, int skipped) {

  /**
   * One symbol's line.
   *
   * @param baselinePct its share in the first run, NaN if it had none
   * @param deltaPct the change of its share, NaN if none was printed
   */
  public record Line(String symbol, double baselinePct, double deltaPct, boolean user) {}

  private static final Pattern LINE =
      Pattern.compile(
          "^(?:(\\d+(?:\\.\\d+)?)%)?\\s*(?:([+-]\\d+(?:\\.\\d+)?)%)?\\s+(?:[+-]?\\d+(?:\\.\\d+)?%?\\s+)*(.*\\S.*)$");

  private static final Pattern MARKER = Pattern.compile("(^|\\s)\\[([k.gHu])\\]\\s+(\\S.*)$");

  /** Reads {@code file}. */
  public static PerfDiff read(Path file) {
    return parse(PerfReport.lines(file, "--perf-diff"), OneLine.of(file.toString()));
  }

  /**
   * Parses {@code raw}.
   *
   * @throws ConfigError if no line is a perf diff line
   */
  public static PerfDiff parse(List<String> raw, String what) {
    List<Line> lines = new ArrayList<>();
    int skipped = 0;
    for (String r : raw) {
      String t = PerfReport.unquoted(r).strip();
      if (t.isEmpty() || t.startsWith("#") || PerfReport.callchain(t)) {
        continue;
      }
      Matcher m = LINE.matcher(" " + t);
      Matcher m2 = LINE.matcher(t);
      Matcher use = m2.matches() && (m2.group(1) != null || m2.group(2) != null) ? m2 : m;
      if (!use.matches() || (use.group(1) == null && use.group(2) == null)) {
        skipped++;
        continue;
      }
      double base = use.group(1) == null ? Double.NaN : Double.parseDouble(use.group(1));
      double delta = use.group(2) == null ? Double.NaN : Double.parseDouble(use.group(2));
      if (base > 100 + PerfReport.SUM_SLACK_PCT
          || Math.abs(delta) > 100 + PerfReport.SUM_SLACK_PCT) {
        throw new ConfigError(
            what + ": " + OneLine.quoted(OneLine.clipped(t)) + ": a share of more than 100%");
      }
      String rest = use.group(3).strip();
      Matcher mk = MARKER.matcher(rest);
      String symbol;
      boolean user;
      if (mk.find()) {
        symbol = mk.group(3).strip();
        user = !"k".equals(mk.group(2));
      } else {
        String[] tok = rest.split("\\s+");
        symbol = tok[tok.length - 1];
        String dso = tok.length > 1 ? tok[tok.length - 2] : "";
        user = !dso.isEmpty() && !(dso.startsWith("[") && dso.endsWith("]"));
      }
      if (symbol.contains("%") || symbol.startsWith("[")) {
        skipped++;
        continue;
      }
      lines.add(new Line(symbol, base, delta, user));
    }
    if (lines.isEmpty()) {
      throw new ConfigError(
          what
              + ": no perf diff line in it (expected lines such as '2.09%     -1.05% "
              + " [kernel.vmlinux]  [k] blk_mq_get_tag': Baseline, Delta, Shared Object, Symbol)");
    }
    return new PerfDiff(List.copyOf(lines), skipped);
  }

  /** The step each line's symbol falls on, "unmapped" or "priced by the facts: ..." if none. */
  public static String stepOf(Line l) {
    SymbolMap.Place p = SymbolMap.place(new PerfEntry(l.symbol(), 0, Double.NaN, "", "", l.user()));
    return switch (p.kind()) {
      case UNMAPPED -> "unmapped";
      case FACTS -> "priced by the facts: " + p.fact();
      default -> String.join(" + ", new TreeSet<>(p.steps().keySet()));
    };
  }

  /** The listing; with {@code iops} (0: none) each share also as ns/IO. */
  public List<String> listing(String source, double iops) {
    List<String> out = new ArrayList<>();
    boolean ns = iops > 0;
    out.add(
        String.format(
            Locale.ROOT,
            "blksim profile diff: %s, %d symbol(s), %d line(s) skipped%s",
            OneLine.of(source),
            lines.size(),
            skipped,
            ns
                ? String.format(Locale.ROOT, "; at %.0f IOPS, 1%% = %.3f ns/IO", iops, 1e7 / iops)
                : ""));
    out.add(
        ns
            ? "  Baseline     Delta   base ns/IO  delta ns/IO  Symbol                             blksim step"
            : "  Baseline     Delta  Symbol                             blksim step");
    Map<String, double[]> bySteps = new LinkedHashMap<>();
    for (Line l : lines) {
      String step = stepOf(l);
      String b =
          Double.isNaN(l.baselinePct())
              ? ""
              : String.format(Locale.ROOT, "%.2f%%", l.baselinePct());
      String d =
          Double.isNaN(l.deltaPct()) ? "" : String.format(Locale.ROOT, "%+.2f%%", l.deltaPct());
      String nsCols =
          ns
              ? String.format(
                  Locale.ROOT,
                  " %12s %12s",
                  Double.isNaN(l.baselinePct())
                      ? ""
                      : String.format(Locale.ROOT, "%.2f", l.baselinePct() / 100 * 1e9 / iops),
                  Double.isNaN(l.deltaPct())
                      ? ""
                      : String.format(Locale.ROOT, "%+.2f", l.deltaPct() / 100 * 1e9 / iops))
              : "";
      out.add(String.format(Locale.ROOT, "  %8s  %8s%s  %-34s %s", b, d, nsCols, l.symbol(), step));
      double[] acc = bySteps.computeIfAbsent(step, k -> new double[1]);
      acc[0] += Double.isNaN(l.deltaPct()) ? 0 : l.deltaPct();
    }
    out.add("  deltas by blksim step:");
    for (Map.Entry<String, double[]> e : bySteps.entrySet()) {
      double pct = e.getValue()[0];
      out.add(
          String.format(
              Locale.ROOT,
              "    %+7.2f%%%s  %s",
              pct,
              ns ? String.format(Locale.ROOT, "  %+8.2f ns/IO", pct / 100 * 1e9 / iops) : "",
              e.getKey()));
    }
    return out;
  }
}

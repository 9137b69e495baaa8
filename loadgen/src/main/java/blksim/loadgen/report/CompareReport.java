package blksim.loadgen.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Two runs side by side, A and B, with the delta of every figure and of every profile line, the
 * table a patch's cover letter would quote; and, when B adds several patches, A plus each alone.
 */
public final class CompareReport {
  private CompareReport() {}

  /** A run and what it is. */
  public record Variant(String label, RunReport report) {}

  /** Prints the comparison; {@code alone} may be empty. */
  public static void print(Variant a, List<Variant> alone, Variant b, PrintStream out) {
    out.printf(
        Locale.ROOT,
        "blksim compare: %.3f s of virtual time, seed %d%n",
        a.report().settings().run().runtimeNs() / 1e9,
        a.report().settings().run().seed());
    for (Variant v : List.of(a, b)) {
      out.println(
          "  " + v.label().charAt(0) + "  " + Summary.commandLine(v.report().settings().ioUring()));
      out.println("     " + Summary.model(v.report().settings()));
    }
    out.println();
    List<Variant> rows = new ArrayList<>();
    rows.add(a);
    rows.addAll(alone);
    rows.add(b);
    int width = rows.stream().mapToInt(v -> v.label().length()).max().orElse(10);
    out.printf(
        Locale.ROOT,
        "  %-" + width + "s %12s %9s %11s%n",
        "variant",
        "IOPS",
        "ns/IO",
        "delta IOPS");
    for (Variant v : rows) {
      out.printf(
          Locale.ROOT,
          "  %-" + width + "s %12d %9.1f %11s%n",
          v.label(),
          v.report().iops(),
          ProfileReport.nsPerIo(ProfileReport.lines(v.report())),
          v == a ? "" : pct(a.report().iops(), v.report().iops()));
    }
    out.println();
    out.printf(Locale.ROOT, "  %-34s %14s %14s %10s%n", "", "A", "B", "delta");
    for (Map.Entry<String, double[]> e : figures(a.report(), b.report()).entrySet()) {
      double[] v = e.getValue();
      out.printf(
          Locale.ROOT,
          "  %-34s %14s %14s %10s%n",
          e.getKey(),
          num(v[0]),
          num(v[1]),
          pct(v[0], v[1]));
    }
    out.println("  CPU time per I/O by kernel function (ns), in A's order:");
    Map<String, double[]> profile = profile(a.report(), b.report());
    for (Map.Entry<String, double[]> e : profile.entrySet()) {
      double[] v = e.getValue();
      out.printf(
          Locale.ROOT, "    %-32s %14.2f %14.2f %10s%n", e.getKey(), v[0], v[1], pct(v[0], v[1]));
    }
  }

  /** The headline figures of A and B, by name. */
  public static Map<String, double[]> figures(RunReport a, RunReport b) {
    Map<String, double[]> f = new LinkedHashMap<>();
    f.put("IOPS", new double[] {a.iops(), b.iops()});
    f.put("bandwidth (B/s)", new double[] {a.bwBytes(), b.bwBytes()});
    f.put("I/Os completed", new double[] {a.completed(), b.completed()});
    f.put("latency p50 (ns)", new double[] {a.latencyNs(50), b.latencyNs(50)});
    f.put("latency p90 (ns)", new double[] {a.latencyNs(90), b.latencyNs(90)});
    f.put("latency p99 (ns)", new double[] {a.latencyNs(99), b.latencyNs(99)});
    f.put("latency p99.9 (ns)", new double[] {a.latencyNs(99.9), b.latencyNs(99.9)});
    f.put(
        "latency max (ns)",
        new double[] {a.result().latencyNs().getMaxValue(), b.result().latencyNs().getMaxValue()});
    f.put(
        "CPU time per I/O (ns)",
        new double[] {
          ProfileReport.nsPerIo(ProfileReport.lines(a)),
          ProfileReport.nsPerIo(ProfileReport.lines(b))
        });
    return f;
  }

  /** Every function of either run, in A's order then B's, with its ns per I/O in each. */
  public static Map<String, double[]> profile(RunReport a, RunReport b) {
    Map<String, double[]> p = new LinkedHashMap<>();
    for (ProfileReport.Line l : ProfileReport.lines(a)) {
      p.computeIfAbsent(l.function(), k -> new double[2])[0] = l.nsPerIo();
    }
    for (ProfileReport.Line l : ProfileReport.lines(b)) {
      p.computeIfAbsent(l.function(), k -> new double[2])[1] = l.nsPerIo();
    }
    return p;
  }

  /** The JSON of a comparison: baseline, patched, delta_pct, and each patch alone. */
  public static String json(Variant a, List<Variant> alone, Variant b) {
    StringBuilder s = new StringBuilder("{\n  \"baseline\": ");
    s.append(indent(JsonReport.render(a.report()))).append(",\n  \"patched\": ");
    s.append(indent(JsonReport.render(b.report()))).append(",\n  \"delta_pct\": {");
    List<String> keys =
        List.of(
            "iops",
            "bw_bytes",
            "ios_completed",
            "latency_ns.p50",
            "latency_ns.p90",
            "latency_ns.p99",
            "latency_ns.p99.9",
            "latency_ns.max",
            "cpu_ns_per_io");
    List<double[]> values = new ArrayList<>(figures(a.report(), b.report()).values());
    for (int i = 0; i < keys.size(); i++) {
      double[] v = values.get(i);
      s.append(i == 0 ? "" : ", ")
          .append(JsonReport.quote(keys.get(i)))
          .append(": ")
          .append(jsonPct(v[0], v[1]));
    }
    s.append("},\n  \"profile_delta_ns\": {");
    int i = 0;
    for (Map.Entry<String, double[]> e : profile(a.report(), b.report()).entrySet()) {
      s.append(i++ == 0 ? "" : ", ")
          .append(JsonReport.quote(e.getKey()))
          .append(": ")
          .append(String.format(Locale.ROOT, "%.3f", e.getValue()[1] - e.getValue()[0]));
    }
    s.append("},\n  \"alone\": [");
    for (int j = 0; j < alone.size(); j++) {
      Variant v = alone.get(j);
      s.append(j == 0 ? "\n" : ",\n")
          .append(
              String.format(
                  Locale.ROOT,
                  "    {\"variant\": %s, \"iops\": %d, \"delta_pct\": {\"iops\": %s}}",
                  JsonReport.quote(v.label()),
                  v.report().iops(),
                  jsonPct(a.report().iops(), v.report().iops())));
    }
    return s.append(alone.isEmpty() ? "]\n}\n" : "\n  ]\n}\n").toString();
  }

  private static String indent(String json) {
    return json.strip().replace("\n", "\n  ");
  }

  private static String jsonPct(double a, double b) {
    return Math.abs(a) < 0.005 ? "null" : String.format(Locale.ROOT, "%.3f", 100 * (b - a) / a);
  }

  private static String pct(double a, double b) {
    if (Math.abs(a) < 0.005) {
      return Math.abs(b) < 0.005 ? "" : "new";
    }
    return String.format(Locale.ROOT, "%+.2f%%", 100 * (b - a) / a);
  }

  private static String num(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15
        ? Long.toString((long) v)
        : String.format(Locale.ROOT, "%.1f", v);
  }
}

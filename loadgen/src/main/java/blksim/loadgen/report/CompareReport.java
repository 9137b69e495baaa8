package blksim.loadgen.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Two runs side by side, A and B, with the delta of every figure and of every profile line, the
 * table a patch's cover letter would quote; and, when B adds several patches, A plus each alone.
 * With several profiles, one row a profile: A and B, and the profile lines that moved most.
 */
public final class CompareReport {
  private CompareReport() {}

  /** A run and what it is. */
  public record Variant(String label, RunReport report) {}

  /** One profile's A and B, a row of {@link #printProfiles}. */
  public record ProfileRow(String profile, Variant a, Variant b) {}

  /** A profile line's change from A to B, in ns per I/O. */
  public record Moved(String function, double deltaNs) {}

  /** How many profile lines a row of {@link #printProfiles} names. */
  public static final int MOVED_LINES = 3;

  /**
   * The lines of {@code profile} ({@link #profile}: A's and B's ns per I/O by function) whose ns
   * per I/O changed most, at most {@code n}, largest change first, ties by name; a change that
   * rounds to 0.00 is left out. Every function name counts, whatever defines it: one only B runs (a
   * symbol a patch adds) moves by all of its time.
   */
  public static List<Moved> moved(Map<String, double[]> profile, int n) {
    List<Moved> all = new ArrayList<>();
    for (Map.Entry<String, double[]> e : profile.entrySet()) {
      double d = e.getValue()[1] - e.getValue()[0];
      if (Math.abs(d) >= 0.005) {
        all.add(new Moved(e.getKey(), d));
      }
    }
    all.sort(
        Comparator.comparingDouble((Moved m) -> Math.abs(m.deltaNs()))
            .reversed()
            .thenComparing(Moved::function));
    return List.copyOf(all.subList(0, Math.min(n, all.size())));
  }

  /**
   * Prints one patch on many CPUs: each profile's A and B, as {@link #print} heads them, then one
   * row a profile: A's and B's IOPS, the delta, the CPU time per I/O B saves, and the {@link
   * #MOVED_LINES} profile lines that moved most.
   */
  public static void printProfiles(List<ProfileRow> rows, PrintStream out) {
    out.println(
        "blksim compare: "
            + runHead(rows.get(0).a(), rows.get(0).b())
            + ", on "
            + rows.size()
            + " profiles");
    for (ProfileRow r : rows) {
      for (Variant v : List.of(r.a(), r.b())) {
        out.println(
            "  "
                + v.label().charAt(0)
                + "  "
                + Summary.commandLine(v.report().settings().ioUring()));
        out.println("     " + Summary.model(v.report().settings()));
      }
    }
    out.println();
    out.println(
        "  " + rows.get(0).a().label() + " and " + rows.get(0).b().label() + " on each profile:");
    int width = Math.max(7, rows.stream().mapToInt(r -> r.profile().length()).max().orElse(7));
    out.printf(
        Locale.ROOT,
        "  %-" + width + "s %12s %12s %11s %12s  %s%n",
        "profile",
        "A IOPS",
        "B IOPS",
        "delta IOPS",
        "ns/IO saved",
        "lines that moved most (B - A, ns/IO)");
    for (ProfileRow r : rows) {
      RunReport a = r.a().report();
      RunReport b = r.b().report();
      List<String> moved = new ArrayList<>();
      for (Moved m : moved(profile(a, b), MOVED_LINES)) {
        moved.add(String.format(Locale.ROOT, "%s %+.2f", m.function(), m.deltaNs()));
      }
      out.printf(
          Locale.ROOT,
          "  %-" + width + "s %12d %12d %11s %12.2f  %s%n",
          r.profile(),
          a.iops(),
          b.iops(),
          pct(a.iops(), b.iops()),
          saved(a, b),
          moved.isEmpty() ? "none" : String.join("; ", moved));
    }
  }

  /** CPU time per I/O that B saves against A, in ns (negative: B spends more). */
  private static double saved(RunReport a, RunReport b) {
    return ProfileReport.nsPerIo(ProfileReport.lines(a))
        - ProfileReport.nsPerIo(ProfileReport.lines(b));
  }

  /**
   * The JSON of one patch on many CPUs: a row a profile, with the figures {@link #printProfiles}
   * prints and, under {@code compare}, the profile's whole comparison as {@link #json} writes it.
   */
  public static String profilesJson(List<ProfileRow> rows) {
    StringBuilder s = new StringBuilder("{\n  \"a\": ");
    s.append(JsonReport.quote(rows.get(0).a().label()))
        .append(",\n  \"b\": ")
        .append(JsonReport.quote(rows.get(0).b().label()))
        .append(",\n  \"profiles\": [");
    for (int i = 0; i < rows.size(); i++) {
      ProfileRow r = rows.get(i);
      RunReport a = r.a().report();
      RunReport b = r.b().report();
      s.append(i == 0 ? "\n" : ",\n")
          .append(
              String.format(
                  Locale.ROOT,
                  "    {\"profile\": %s, \"a_iops\": %d, \"b_iops\": %d,"
                      + " \"delta_pct\": {\"iops\": %s}, \"a_cpu_ns_per_io\": %.3f,"
                      + " \"b_cpu_ns_per_io\": %.3f, \"ns_per_io_saved\": %.3f, \"moved\": [",
                  JsonReport.quote(r.profile()),
                  a.iops(),
                  b.iops(),
                  jsonPct(a.iops(), b.iops()),
                  ProfileReport.nsPerIo(ProfileReport.lines(a)),
                  ProfileReport.nsPerIo(ProfileReport.lines(b)),
                  saved(a, b)));
      List<Moved> moved = moved(profile(a, b), MOVED_LINES);
      for (int j = 0; j < moved.size(); j++) {
        s.append(j == 0 ? "" : ", ")
            .append(
                String.format(
                    Locale.ROOT,
                    "{\"function\": %s, \"delta_ns\": %.3f}",
                    JsonReport.quote(moved.get(j).function()),
                    moved.get(j).deltaNs()));
      }
      s.append("],\n      \"compare\": ")
          .append(json(r.a(), List.of(), r.b()).strip().replace("\n", "\n      "))
          .append("}");
    }
    return s.append("\n  ]\n}\n").toString();
  }

  /**
   * The virtual time and seed of A and B: once when they agree, else each side's own (--a-set and
   * --b-set may set run.runtime or run.seed).
   */
  static String runHead(Variant a, Variant b) {
    blksim.config.RunSettings ra = a.report().settings().run();
    blksim.config.RunSettings rb = b.report().settings().run();
    String time =
        ra.runtimeNs() == rb.runtimeNs()
            ? seconds(ra.runtimeNs()) + " s of virtual time"
            : "virtual time A "
                + seconds(ra.runtimeNs())
                + " s, B "
                + seconds(rb.runtimeNs())
                + " s";
    String seed =
        ra.seed() == rb.seed() ? "seed " + ra.seed() : "seed A " + ra.seed() + ", B " + rb.seed();
    return time + ", " + seed;
  }

  private static String seconds(long ns) {
    return String.format(Locale.ROOT, "%.3f", ns / 1e9);
  }

  /** Prints the comparison; {@code alone} may be empty. */
  public static void print(Variant a, List<Variant> alone, Variant b, PrintStream out) {
    out.println("blksim compare: " + runHead(a, b));
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
                  "    {\"variant\": %s, \"iops\": %d, \"cpu_ns_per_io\": %.3f,"
                      + " \"delta_pct\": {\"iops\": %s, \"cpu_ns_per_io\": %s}}",
                  JsonReport.quote(v.label()),
                  v.report().iops(),
                  ProfileReport.nsPerIo(ProfileReport.lines(v.report())),
                  jsonPct(a.report().iops(), v.report().iops()),
                  jsonPct(
                      ProfileReport.nsPerIo(ProfileReport.lines(a.report())),
                      ProfileReport.nsPerIo(ProfileReport.lines(v.report())))));
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

package blksim.loadgen.report;

import blksim.config.ConfigError;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@code report.html} of a compare directory ({@code compare --out DIR}): a table of A's, B's and
 * each patch alone's IOPS and CPU time per I/O, A's and B's latency curves and IOPS overlaid, and
 * B's profile minus A's, from the two run directories {@code DIR/A} and {@code DIR/B} and {@code
 * DIR/compare.json} (for the patches alone) alone.
 */
public final class CompareHtml {
  private CompareHtml() {}

  /** Whether {@code dir} holds a compare's two sides. */
  public static boolean isCompare(Path dir) {
    return Files.isDirectory(dir.resolve("A")) && Files.isDirectory(dir.resolve("B"));
  }

  /**
   * The compare directories of a compare on several profiles ({@code compare --profile a,b --out
   * DIR}: {@code DIR/compare.json} and a compare directory a profile), sorted by name; empty for
   * any other directory.
   */
  public static List<Path> profileDirs(Path dir) throws IOException {
    if (isCompare(dir) || !Files.isRegularFile(dir.resolve("compare.json"))) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.filter(CompareHtml::isCompare).sorted().toList();
    }
  }

  /** Writes {@code dir/report.html}. */
  public static Path write(Path dir) throws IOException {
    Path a = dir.resolve("A");
    Path b = dir.resolve("B");
    Config sa = HtmlReport.summary(a);
    Config sb = HtmlReport.summary(b);
    List<Double> t = new ArrayList<>();
    List<Double> ia = iops(sa, t);
    List<Double> ib = iops(sb, new ArrayList<>());
    String data =
        HtmlReport.obj(
            "ticks", HtmlReport.ticks(),
            "x", HtmlReport.nums(HtmlReport.curveX()),
            "t", HtmlReport.nums(t),
            "a", side(sa, a, ia),
            "b", side(sb, b, ib),
            "profile", HtmlReport.bars(ProfileBars.of(delta(sa, sb))));
    String html =
        HtmlReport.resource("blksim/report/compare.html")
            .replace("/*UPLOT_CSS*/", HtmlReport.resource(HtmlReport.UPLOT + "uPlot.min.css"))
            .replace("/*UPLOT_JS*/", HtmlReport.resource(HtmlReport.UPLOT + "uPlot.iife.min.js"))
            .replace("<!--HEADLINE-->", headline(sa, alone(dir), sb))
            .replace("<!--FIGURES-->", figures(sa, sb))
            .replace("/*DATA*/", data);
    Path out = dir.resolve("report.html");
    Files.writeString(out, html, StandardCharsets.UTF_8);
    return out;
  }

  /** B's ns/IO minus A's by function; a function only one side has counts as 0 on the other. */
  static Map<String, Double> delta(Config sa, Config sb) {
    Map<String, Double> pa = profile(sa);
    Map<String, Double> pb = profile(sb);
    Map<String, Double> delta = new TreeMap<>();
    for (String f : pa.keySet()) {
      delta.put(f, pb.getOrDefault(f, 0.0) - pa.get(f));
    }
    for (String f : pb.keySet()) {
      delta.putIfAbsent(f, pb.get(f));
    }
    return delta;
  }

  /**
   * The rows of each patch alone of {@code dir/compare.json}, as compare ran them; none if it ran
   * none (a compare on several profiles, or one patch) or the file is not there.
   *
   * @throws ConfigError if the file is there but is not a compare's JSON
   */
  static List<? extends Config> alone(Path dir) {
    Path json = dir.resolve("compare.json");
    if (!Files.isRegularFile(json)) {
      return List.of();
    }
    try {
      Config c =
          ConfigFactory.parseFile(
              json.toFile(), ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
      return c.hasPath("alone") ? c.getConfigList("alone") : List.of();
    } catch (ConfigException e) {
      throw new ConfigError(json + ": not blksim's compare.json: " + e.getMessage());
    }
  }

  /** A, each patch alone and B: IOPS and CPU time per I/O, each with its change from A. */
  static String headline(Config sa, List<? extends Config> alone, Config sb) {
    HtmlTable t =
        new HtmlTable("headline", "variant", "IOPS", "delta IOPS", "ns/IO", "delta ns/IO");
    double iopsA = sa.getLong("iops");
    double nsA = RunTables.nsPerIo(sa);
    t.row("A", Long.toString(sa.getLong("iops")), "", ns(nsA), "");
    for (Config v : alone) {
      long iops = v.getLong("iops");
      boolean hasNs = v.hasPath("cpu_ns_per_io");
      double ns = hasNs ? v.getDouble("cpu_ns_per_io") : 0;
      t.row(
          v.getString("variant"),
          Long.toString(iops),
          pct(iopsA, iops),
          hasNs ? ns(ns) : "",
          hasNs ? pct(nsA, ns) : "");
    }
    double nsB = RunTables.nsPerIo(sb);
    t.row(
        "B",
        Long.toString(sb.getLong("iops")),
        pct(iopsA, sb.getLong("iops")),
        ns(nsB),
        pct(nsA, nsB));
    return t.toString();
  }

  /** A's and B's bandwidth, I/Os and latency, with B's change from A; latency in µs. */
  static String figures(Config sa, Config sb) {
    HtmlTable t = new HtmlTable("figures", "", "A", "B", "delta");
    t.row(
        "bandwidth, B/s",
        Long.toString(sa.getLong("bw_bytes")),
        Long.toString(sb.getLong("bw_bytes")),
        pct(sa.getLong("bw_bytes"), sb.getLong("bw_bytes")));
    t.row(
        "I/Os completed",
        Long.toString(sa.getLong("ios_completed")),
        Long.toString(sb.getLong("ios_completed")),
        pct(sa.getLong("ios_completed"), sb.getLong("ios_completed")));
    for (String p : List.of("p50", "p90", "p99", "p99.9", "max")) {
      double la = RunTables.latencyNs(sa, p);
      double lb = RunTables.latencyNs(sb, p);
      t.row(
          "latency " + p + ", µs", RunTables.num(la / 1000), RunTables.num(lb / 1000), pct(la, lb));
    }
    return t.toString();
  }

  /** B's change from A in %, as compare prints it ("+3.73%"); "" when A is 0. */
  static String pct(double a, double b) {
    return Math.abs(a) < 0.005 ? "" : String.format(Locale.ROOT, "%+.2f%%", 100 * (b - a) / a);
  }

  private static String ns(double ns) {
    return String.format(Locale.ROOT, "%.1f", ns);
  }

  private static String side(Config s, Path dir, List<Double> iops) throws IOException {
    return HtmlReport.obj(
        "command", HtmlReport.str(s.getString("blksim_command")),
        "model", HtmlReport.str(s.getString("model")),
        "us", HtmlReport.nums(HtmlReport.curveUs(HtmlReport.total(dir.resolve("latency.hlog")))),
        "iops", HtmlReport.nums(iops));
  }

  private static List<Double> iops(Config s, List<Double> t) {
    List<Double> v = new ArrayList<>();
    for (Config iv : s.getConfigList("intervals")) {
      t.add(iv.getLong("end_ns") / 1e9);
      v.add((double) iv.getLong("iops"));
    }
    return v;
  }

  private static Map<String, Double> profile(Config s) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (Config p : s.getConfigList("profile")) {
      m.put(p.getString("function"), p.getDouble("ns_per_io"));
    }
    return m;
  }
}

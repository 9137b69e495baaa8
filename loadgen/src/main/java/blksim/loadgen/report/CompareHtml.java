package blksim.loadgen.report;

import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@code report.html} of a compare directory ({@code compare --out DIR}): A's and B's latency
 * curves and IOPS overlaid, and B's profile minus A's, from the two run directories {@code DIR/A}
 * and {@code DIR/B} alone.
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
    Map<String, Double> pa = profile(sa);
    Map<String, Double> pb = profile(sb);
    Map<String, Double> delta = new TreeMap<>();
    for (String f : pa.keySet()) {
      delta.put(f, pb.getOrDefault(f, 0.0) - pa.get(f));
    }
    for (String f : pb.keySet()) {
      delta.putIfAbsent(f, pb.get(f));
    }
    String data =
        "{\n  x: "
            + HtmlReport.nums(HtmlReport.curveX())
            + ",\n  t: "
            + HtmlReport.nums(t)
            + ",\n  a: "
            + side(sa, a, ia)
            + ",\n  b: "
            + side(sb, b, ib)
            + ",\n  profile: {names: "
            + HtmlReport.strs(new ArrayList<>(delta.keySet()))
            + ", delta: "
            + HtmlReport.nums(new ArrayList<>(delta.values()))
            + "}\n}";
    String html =
        HtmlReport.resource("blksim/report/compare.html")
            .replace("/*UPLOT_CSS*/", HtmlReport.resource(HtmlReport.UPLOT + "uPlot.min.css"))
            .replace("/*UPLOT_JS*/", HtmlReport.resource(HtmlReport.UPLOT + "uPlot.iife.min.js"))
            .replace("/*DATA*/", data);
    Path out = dir.resolve("report.html");
    Files.writeString(out, html, StandardCharsets.UTF_8);
    return out;
  }

  private static String side(Config s, Path dir, List<Double> iops) throws IOException {
    return "{command: "
        + HtmlReport.str(s.getString("blksim_command"))
        + ", model: "
        + HtmlReport.str(s.getString("model"))
        + ", us: "
        + HtmlReport.nums(HtmlReport.curveUs(HtmlReport.total(dir.resolve("latency.hlog"))))
        + ", iops: "
        + HtmlReport.nums(iops)
        + "}";
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

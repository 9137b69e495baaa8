package blksim.loadgen.report;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * {@code report.html} of a run directory, from the directory's files alone ({@code summary.json}
 * and {@code latency.hlog}): one self-contained page, its charts drawn by uPlot, inlined from its
 * webjar, so that it opens from disk with no network.
 */
public final class HtmlReport {
  static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";

  private HtmlReport() {}

  /**
   * Writes {@code dir/report.html}.
   *
   * @throws ConfigError if {@code dir} is not a run directory
   */
  public static Path write(Path dir) throws IOException {
    Config s = summary(dir);
    Path hlog = dir.resolve("latency.hlog");
    String html =
        resource("blksim/report/report.html")
            .replace("/*UPLOT_CSS*/", resource(UPLOT + "uPlot.min.css"))
            .replace("/*UPLOT_JS*/", resource(UPLOT + "uPlot.iife.min.js"))
            .replace("<!--SUMMARY-->", RunTables.summary(s))
            .replace("<!--PERCENTILES-->", RunTables.percentileTable(s))
            .replace("<!--CPUS-->", RunTables.cpus(CpuTimes.of(s)))
            .replace("<!--RUNQUEUE-->", RunTables.runQueue(s))
            .replace("<!--HCTX-->", RunTables.hctx(s))
            .replace("/*DATA*/", data(s, hlog));
    Path out = dir.resolve("report.html");
    Files.writeString(out, html, StandardCharsets.UTF_8);
    return out;
  }

  /**
   * The summary.json of run directory {@code dir}.
   *
   * @throws ConfigError if {@code dir} is not a run directory
   */
  static Config summary(Path dir) {
    Path summary = dir.resolve("summary.json");
    if (!Files.isRegularFile(summary) || !Files.isRegularFile(dir.resolve("latency.hlog"))) {
      throw new ConfigError(
          dir + ": not a run directory (summary.json and latency.hlog, as --out writes them)");
    }
    try {
      Config s =
          ConfigFactory.parseFile(
              summary.toFile(), ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
      check(s);
      return s;
    } catch (ConfigException e) {
      // Typesafe Config's message names the file and line: "F: 18: iops has type STRING rather
      // than NUMBER", "F: 1: No configuration setting found for key 'intervals'"
      throw new ConfigError(
          OneLine.of(e.getMessage().replace('\n', ' '))
              + " (not blksim's summary.json, as --out writes it)");
    }
  }

  /**
   * Reads every figure of {@code s} that a report draws (here and in {@link CompareHtml}), so that
   * a summary.json with one missing or of the wrong type is refused before any is drawn.
   *
   * @throws ConfigException naming the first that is
   */
  private static void check(Config s) {
    s.getString("model");
    s.getString("blksim_command");
    for (Config iv : s.getConfigList("intervals")) {
      iv.getLong("end_ns");
      iv.getLong("iops");
    }
    for (Config p : s.getConfigList("profile")) {
      p.getString("function");
      p.getDouble("ns_per_io");
    }
    for (Config c : s.getConfigList("cpus")) {
      c.getInt("cpu");
      for (String k : c.root().keySet()) {
        if (k.endsWith("_ns")) {
          c.getDouble(k);
        }
      }
    }
    for (Config h : s.getConfigList("hctx")) {
      h.getString("name");
      h.getDouble("mean_in_use");
    }
  }

  /**
   * Hands each untagged interval of an interval log (all submitters) to {@code each}, in order, one
   * at a time: a log of 10,000 intervals is never in memory whole.
   */
  static void forEachInterval(Path hlog, java.util.function.Consumer<Histogram> each)
      throws IOException {
    HlogCheck.check(hlog);
    HistogramLogReader reader = new HistogramLogReader(hlog.toFile());
    try {
      for (EncodableHistogram e = reader.nextIntervalHistogram();
          e != null;
          e = reader.nextIntervalHistogram()) {
        if (e.getTag() == null) {
          each.accept((Histogram) e);
        }
      }
    } catch (RuntimeException e) {
      // HlogCheck has read every line as the reader does; this is for what it did not foresee
      throw new ConfigError(hlog + ": " + HlogCheck.NOT_A_LOG);
    } finally {
      reader.close();
    }
  }

  /** The untagged intervals of an interval log, added up. */
  static Histogram total(Path hlog) throws IOException {
    Histogram all = new Histogram(3);
    forEachInterval(hlog, all::add);
    return all;
  }

  /** The intervals' sum and their p99 over virtual time, the drain after the runtime left out. */
  private static final class Series implements java.util.function.Consumer<Histogram> {
    final Histogram all = new Histogram(3);
    final List<Double> p99t = new ArrayList<>();
    final List<Double> p99 = new ArrayList<>();
    private final double runtimeMs;

    Series(double runtimeMs) {
      this.runtimeMs = runtimeMs;
    }

    @Override
    public void accept(Histogram h) {
      all.add(h);
      // The drain after the runtime is no interval of the run: its few I/Os are in the totals.
      if (h.getStartTimeStamp() < runtimeMs) {
        p99t.add(h.getEndTimeStamp() / 1000.0);
        p99.add(h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99) / 1000.0);
      }
    }
  }

  /** The x of the percentile curve: 1/(1-p) = 10^(k/10), p0 to p99.9999, as HdrHistogram plots. */
  static List<Double> curveX() {
    List<Double> x = new ArrayList<>();
    for (int k = 0; k <= 60; k++) {
      x.add(Math.pow(10, k / 10.0));
    }
    return x;
  }

  /** The latency at each x of {@link #curveX()}, in µs. */
  static List<Double> curveUs(Histogram h) {
    List<Double> us = new ArrayList<>();
    for (double inv : curveX()) {
      us.add(h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(100.0 * (1 - 1 / inv)) / 1000.0);
    }
    return us;
  }

  /** The figures the page draws, as a JSON object (a JavaScript object literal too). */
  static String data(Config s, Path hlog) throws IOException {
    Series series = new Series(s.getLong("virtual_ns") / 1e6);
    forEachInterval(hlog, series);
    Histogram all = series.all;
    List<Double> p99t = series.p99t;
    List<Double> p99 = series.p99;
    List<Double> x = all.getTotalCount() == 0 ? List.of() : curveX();
    List<Double> us = all.getTotalCount() == 0 ? List.of() : curveUs(all);
    LatencyBins.Bins bins = LatencyBins.of(all);
    // IOPS of each status line, exact, from the summary (the log's stamps are to the ms).
    List<Double> t = new ArrayList<>();
    List<Double> iops = new ArrayList<>();
    for (Config iv : s.getConfigList("intervals")) {
      t.add(iv.getLong("end_ns") / 1e9);
      iops.add((double) iv.getLong("iops"));
    }
    Map<String, Double> profile = new LinkedHashMap<>();
    for (Config p : s.getConfigList("profile")) {
      profile.put(p.getString("function"), p.getDouble("ns_per_io"));
    }
    CpuTimes.Shares cpu = CpuTimes.of(s);
    List<String> hctx = new ArrayList<>();
    List<Double> mean = new ArrayList<>();
    List<Double> max = new ArrayList<>();
    List<Double> depth = new ArrayList<>();
    for (Config h : s.getConfigList("hctx")) {
      hctx.add(h.getString("name"));
      mean.add(h.getDouble("mean_in_use"));
      max.add((double) h.getLong("max_in_use"));
      depth.add((double) h.getLong("tags"));
    }
    List<String> stacked = new ArrayList<>();
    for (int c = 0; c < cpu.categories().size(); c++) {
      stacked.add(nums(cpu.stacked(c)));
    }
    return obj(
        "title", str(s.getString("model")),
        "command", str(s.getString("blksim_command")),
        "ticks", ticks(),
        "percentiles", obj("x", nums(x), "us", nums(us)),
        "histogram",
            obj(
                "width_ns", Long.toString(bins.widthNs()),
                "us", nums(bins.centerUs()),
                "ios", nums(bins.ios())),
        "intervals", obj("t", nums(t), "iops", nums(iops), "p99t", nums(p99t), "p99", nums(p99)),
        "profile", bars(ProfileBars.of(profile)),
        "cpus",
            obj(
                "names", strs(cpu.cpus()),
                "categories", strs(cpu.categories()),
                "stacked", "[" + String.join(", ", stacked) + "]"),
        "hctx",
            obj("names", strs(hctx), "mean", nums(mean), "max", nums(max), "depth", nums(depth)));
  }

  /** The percentile axis's ticks: x = 1/(1-p) at each power of ten, labelled p ("99.9 %"). */
  static String ticks() {
    List<Double> x = new ArrayList<>();
    List<String> label = new ArrayList<>();
    for (int k = 0; k <= 6; k++) {
      x.add(Math.pow(10, k));
      label.add(
          k == 0 ? "0 %" : k == 1 ? "90 %" : k == 2 ? "99 %" : "99." + "9".repeat(k - 2) + " %");
    }
    return obj("x", nums(x), "labels", strs(label));
  }

  /** The bars of a profile chart: their names and ns/IO. */
  static String bars(List<ProfileBars.Bar> bars) {
    List<String> names = new ArrayList<>();
    List<Double> ns = new ArrayList<>();
    for (ProfileBars.Bar b : bars) {
      names.add(b.name());
      ns.add(b.ns());
    }
    return obj("names", strs(names), "ns", nums(ns));
  }

  /** A JSON object of keys and values, given in turn, each value already JSON. */
  static String obj(String... keyValue) {
    StringBuilder b = new StringBuilder("{");
    for (int i = 0; i < keyValue.length; i += 2) {
      b.append(i == 0 ? "" : ", ").append(str(keyValue[i])).append(": ").append(keyValue[i + 1]);
    }
    return b.append("}").toString();
  }

  static String nums(List<Double> v) {
    return v.stream()
        .map(d -> String.format(Locale.ROOT, "%.6g", d))
        .collect(Collectors.joining(", ", "[", "]"));
  }

  static String strs(List<String> v) {
    return v.stream().map(HtmlReport::str).collect(Collectors.joining(", ", "[", "]"));
  }

  /** A JavaScript string literal, safe inside a script element. */
  static String str(String s) {
    return JsonReport.quote(s).replace("</", "<\\/");
  }

  static String resource(String name) throws IOException {
    try (InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}

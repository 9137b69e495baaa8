package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.loadgen.report.HtmlReport;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * report.html: one file that opens from disk, its tables the figures of summary.json, its charts'
 * data sorted and stacked as the page says, and {@code blksim report} draws it again.
 */
class HtmlReportTest {
  @TempDir Path tmp;

  private Path run(String... more) {
    Path dir = tmp.resolve("run");
    List<String> args =
        new ArrayList<>(
            List.of("io_uring", "-d32", "-s32", "-c32", "-b512", "--set", "run.runtime=20ms"));
    args.addAll(List.of(more));
    args.addAll(List.of("--out", dir.toString(), "/dev/nullb0"));
    Blksim r = Blksim.run(args.toArray(String[]::new));
    assertEquals(0, r.status(), r.err());
    return dir;
  }

  @Test
  void theReportShouldBeSelfContainedAndDrawnAgainFromTheDirectoryAlone() throws IOException {
    Path dir = run("-p0", "--null-blk", "irqmode=2");
    Path html = dir.resolve("report.html");
    String first = Files.readString(html);
    assertTrue(first.contains("uPlot"), "uPlot is inlined");
    assertFalse(first.contains("src=\"http"), "nothing fetched from a network");
    assertFalse(first.contains("<link"), "no stylesheet to fetch");
    assertTrue(first.contains("\"percentiles\": {\"x\": [1.00000, 1.25893"), "1/(1-p) from 1 up");
    assertTrue(first.contains("nullb0-hctx0"), "the hardware queue's tags");
    Files.delete(html);
    Blksim again = Blksim.run("report", dir.toString());
    assertEquals(0, again.status(), again.err());
    assertEquals("blksim report: " + html + "\n", again.out());
    assertEquals(first, Files.readString(html), "the same page from the same files");
    HtmlReport.write(dir);
    byte[] second = Files.readAllBytes(html);
    HtmlReport.write(dir);
    assertArrayEquals(second, Files.readAllBytes(html), "two writes, the same bytes");
  }

  @Test
  void theTablesOnTopShouldBeSummaryJsonsFigures() throws IOException {
    Path dir = run("-p1");
    Config s = json(dir.resolve("summary.json"));
    String html = Files.readString(dir.resolve("report.html"));
    String top = html.substring(0, html.indexOf("<h2>"));
    assertTrue(top.contains(row("IOPS", Long.toString(s.getLong("iops")))), top);
    assertTrue(
        top.contains(
            row(
                "I/Os",
                s.getLong("ios_submitted")
                    + " submitted, "
                    + s.getLong("ios_completed")
                    + " completed")),
        top);
    assertTrue(
        top.contains(row("CPU time per I/O", fmt("%.1f ns", s.getDouble("cpu_ns_per_io")))), top);
    Config lat = s.getConfig("latency_ns");
    for (String p : List.of("p50", "p90", "p99", "p99.9", "max")) {
      long ns = ((Number) lat.root().get(p).unwrapped()).longValue();
      String name = p.equals("max") ? "latency max" : "latency " + p;
      assertTrue(top.contains(row(name, fmt("%.3f µs", ns / 1000.0))), name + " in " + top);
    }
    long p9999 = ((Number) lat.getObject("percentile").get("99.990000").unwrapped()).longValue();
    assertTrue(top.contains(row("latency p99.99", fmt("%.3f µs", p9999 / 1000.0))), top);
    assertTrue(top.contains(row("books", "balanced: every I/O submitted completed once;")), top);
    // the percentile table: each of summary.json's, in order, then the maximum
    int at = top.indexOf("<table class=\"pct\">");
    assertTrue(at > 0, top);
    int last = at;
    for (Map.Entry<String, Object> e : lat.getObject("percentile").unwrapped().entrySet()) {
      String p = "p" + e.getKey().replaceAll("0+$", "").replaceAll("\\.$", "");
      String r = row(p, fmt("%.3f", ((Number) e.getValue()).longValue() / 1000.0));
      assertTrue(top.indexOf(r, at) > 0, r + " in " + top);
    }
    for (String p : List.of("p1<", "p50<", "p99<", "p99.9<", "p99.99<", "max<")) {
      int i = top.indexOf("<td>" + p, at);
      assertTrue(i > last, p + " after the one before, in " + top);
      last = i;
    }
    assertFalse(html.contains("'us'"), "µs, not us");
  }

  @Test
  void theChartsDataShouldBeSortedStackedAndWithoutTheDrain() throws IOException {
    Path dir = run("-p1");
    Config s = json(dir.resolve("summary.json"));
    Config d = data(Files.readString(dir.resolve("report.html")));
    assertEquals(
        List.of("0 %", "90 %", "99 %", "99.9 %", "99.99 %", "99.999 %", "99.9999 %"),
        d.getStringList("ticks.labels"));
    // the profile: largest first, no zero, at most 15 and the others summed, all of it in all
    List<String> names = d.getStringList("profile.names");
    List<Double> ns = d.getDoubleList("profile.ns");
    double all = 0;
    int nonZero = 0;
    for (Config p : s.getConfigList("profile")) {
      all += p.getDouble("ns_per_io");
      nonZero += Math.abs(p.getDouble("ns_per_io")) >= 0.005 ? 1 : 0;
    }
    assertTrue(nonZero > 16, "enough functions to sum some: " + nonZero);
    assertEquals(16, names.size(), names.toString());
    assertEquals("others (" + (nonZero - 15) + " functions)", names.get(15));
    for (int i = 1; i < 15; i++) {
      assertTrue(ns.get(i) <= ns.get(i - 1), "sorted by ns/IO: " + ns);
    }
    assertEquals(s.getConfigList("profile").get(0).getString("function"), names.get(0));
    assertTrue(ns.stream().allMatch(v -> v >= 0.005), ns.toString());
    assertEquals(all, ns.stream().mapToDouble(Double::doubleValue).sum(), 0.01);
    // one stacked bar a CPU: submit, then submit and poll, ..., to 100 % with idle
    assertEquals(
        List.of("submit", "poll", "irq", "lock wait", "idle"),
        d.getStringList("cpus.categories").subList(0, 5));
    Config cpu = s.getConfigList("cpus").get(0);
    double total =
        cpu.getDouble("submit_ns")
            + cpu.getDouble("poll_ns")
            + cpu.getDouble("irq_ns")
            + cpu.getDouble("lock_wait_ns")
            + cpu.getDouble("idle_ns");
    List<? extends List<?>> stacked = stacked(d);
    assertEquals(100 * cpu.getDouble("submit_ns") / total, num(stacked.get(0).get(0)), 0.001);
    assertEquals(
        100 * (cpu.getDouble("submit_ns") + cpu.getDouble("poll_ns")) / total,
        num(stacked.get(1).get(0)),
        0.001);
    assertEquals(100, num(stacked.get(stacked.size() - 1).get(0)), 0.001);
    // the tags: mean, max and depth of each hardware queue
    Config h = s.getConfigList("hctx").get(0);
    assertEquals(List.of(h.getString("name")), d.getStringList("hctx.names"));
    assertEquals(h.getDouble("mean_in_use"), d.getDoubleList("hctx.mean").get(0), 0.001);
    assertEquals(h.getLong("max_in_use"), d.getDoubleList("hctx.max").get(0));
    assertEquals(h.getLong("tags"), d.getDoubleList("hctx.depth").get(0));
    // the drain after the runtime is no point of the IOPS or p99 series
    int intervals = s.getConfigList("intervals").size();
    assertEquals(intervals, d.getDoubleList("intervals.iops").size());
    assertEquals(intervals, d.getDoubleList("intervals.p99").size());
    assertTrue(
        d.getDoubleList("intervals.p99t").get(intervals - 1) <= s.getLong("virtual_ns") / 1e9);
    // the histogram holds every I/O reaped
    double ios = d.getDoubleList("histogram.ios").stream().mapToDouble(Double::doubleValue).sum();
    assertEquals(s.getLong("ios_completed"), (long) ios);
  }

  @Test
  void compareShouldWriteBothSidesAndAnOverlay() throws IOException {
    Path dir = tmp.resolve("cmp");
    Blksim r =
        Blksim.run(
            "compare",
            "--engine=sequential",
            "--set",
            "run.runtime=20ms",
            "--out",
            dir.toString(),
            "--patch",
            "bdev-cache-in-file,bdev-inode-inline",
            "--",
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    for (String f : new String[] {"A/summary.json", "B/latency.hlog", "A/report.html"}) {
      assertTrue(Files.exists(dir.resolve(f)), f);
    }
    Config cmp = json(dir.resolve("compare.json"));
    String first = Files.readString(dir.resolve("report.html"));
    assertTrue(first.contains("B minus A"), "the profile's difference");
    Config d = data(first);
    assertTrue(d.getString("a.command").startsWith("t/io_uring -d32"), "A's curve");
    assertTrue(d.getString("b.command").startsWith("t/io_uring -d32"), "B's curve");
    // the headline: A, each patch alone, B, with IOPS and ns/IO and their change from A
    String head = first.substring(first.indexOf("<table class=\"headline\">"));
    head = head.substring(0, head.indexOf("</table>"));
    double nsA = cmp.getDouble("baseline.cpu_ns_per_io");
    assertTrue(
        head.contains(row("A", cmp.getLong("baseline.iops") + "", "", fmt("%.1f", nsA), "")), head);
    for (Config v : cmp.getConfigList("alone")) {
      String r1 =
          row(
              v.getString("variant"),
              Long.toString(v.getLong("iops")),
              fmt("%+.2f%%", v.getDouble("delta_pct.iops")),
              fmt("%.1f", v.getDouble("cpu_ns_per_io")),
              fmt("%+.2f%%", v.getDouble("delta_pct.cpu_ns_per_io")));
      assertTrue(head.contains(r1), r1 + " in " + head);
    }
    assertEquals(2, cmp.getConfigList("alone").size());
    assertTrue(
        head.contains(
            row(
                "B",
                cmp.getLong("patched.iops") + "",
                fmt("%+.2f%%", cmp.getDouble("delta_pct.iops")),
                fmt("%.1f", cmp.getDouble("patched.cpu_ns_per_io")),
                fmt("%+.2f%%", cmp.getDouble("delta_pct.cpu_ns_per_io")))),
        head);
    // B - A by function: largest change first, no zero, each as compare.json has it
    List<String> names = d.getStringList("profile.names");
    List<Double> delta = d.getDoubleList("profile.ns");
    Config pd = cmp.getConfig("profile_delta_ns");
    assertEquals("__blkdev_direct_IO", names.get(0), names.toString());
    for (int i = 0; i < names.size(); i++) {
      assertTrue(Math.abs(delta.get(i)) >= 0.005, delta.toString());
      assertTrue(i == 0 || Math.abs(delta.get(i)) <= Math.abs(delta.get(i - 1)), delta.toString());
      if (!names.get(i).startsWith("others")) {
        assertEquals(pd.getDouble("\"" + names.get(i) + "\""), delta.get(i), 0.0011);
      }
    }
    Files.delete(dir.resolve("report.html"));
    assertEquals(0, Blksim.run("report", dir.toString()).status());
    assertEquals(first, Files.readString(dir.resolve("report.html")));
    Files.writeString(dir.resolve("compare.json"), "{\"alone\": [");
    Blksim bad = Blksim.run("report", dir.toString());
    assertEquals(2, bad.status(), bad.err());
    assertEquals(1, bad.errLines().size(), bad.err());
    assertTrue(bad.err().contains("compare.json: not blksim's compare.json"), bad.err());
  }

  /** A run directory, damaged by {@code damage}; what {@code blksim report} then says. */
  private Blksim reportOfDamaged(String name, Damage damage) throws IOException {
    Path dir = tmp.resolve(name);
    Blksim r =
        Blksim.run(
            "io_uring",
            "--engine",
            "sequential",
            "--set",
            "run.runtime=3ms",
            "--out",
            dir.toString(),
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    damage.apply(dir);
    Blksim report = Blksim.run("report", dir.toString());
    assertEquals(2, report.status(), report.err());
    assertEquals(1, report.errLines().size(), report.err());
    assertEquals("", report.out());
    return report;
  }

  interface Damage {
    void apply(Path dir) throws IOException;
  }

  @Test
  void anEmptySummaryShouldBeOneLineNamingIt() throws IOException {
    Blksim r = reportOfDamaged("empty", d -> Files.writeString(d.resolve("summary.json"), "{}"));
    assertTrue(
        r.err().contains("summary.json: 1: No configuration setting found for key 'model'"),
        r.err());
  }

  @Test
  void aSummaryWithAStringForANumberShouldBeOneLineNamingTheKey() throws IOException {
    Blksim r = reportOfDamaged("strings", HtmlReportTest::iopsAsStrings);
    assertTrue(r.err().contains("iops has type STRING rather than NUMBER"), r.err());
    assertTrue(r.err().contains("summary.json: "), r.err());
  }

  private static void iopsAsStrings(Path dir) throws IOException {
    Path f = dir.resolve("summary.json");
    Files.writeString(
        f, Files.readString(f).replaceAll("\"iops\": ([0-9]+)", "\"iops\": \"many\""));
  }

  @Test
  void aCorruptedBase64ShouldBeOneLineNamingTheLine() throws IOException {
    Blksim r = reportOfDamaged("base64", d -> replaceInLine(d, 4, 40, "@@!!"));
    assertTrue(
        r.err().contains("latency.hlog: line 5: the histogram's base64 is corrupted"), r.err());
  }

  @Test
  void aDamagedHistogramShouldBeOneLineNamingTheLine() throws IOException {
    Blksim r = reportOfDamaged("bytes", d -> replaceInLine(d, 4, 60, "AAAA"));
    assertTrue(r.err().contains("latency.hlog: line 5: the histogram does not decode"), r.err());
  }

  /** Overwrites the text of {@code dir}'s latency.hlog at line {@code index} (0-based), column. */
  private static void replaceInLine(Path dir, int index, int column, String with)
      throws IOException {
    Path f = dir.resolve("latency.hlog");
    java.util.List<String> lines = new java.util.ArrayList<>(Files.readAllLines(f));
    String line = lines.get(index);
    lines.set(index, line.substring(0, column) + with + line.substring(column + with.length()));
    Files.write(f, lines);
  }

  @Test
  void aLogCutMidLineShouldBeOneLine() throws IOException {
    Blksim r = reportOfDamaged("cut", HtmlReportTest::cutInHalf);
    assertTrue(r.err().contains("is cut short (the file ends in the middle of it)"), r.err());
  }

  private static void cutInHalf(Path dir) throws IOException {
    Path f = dir.resolve("latency.hlog");
    String text = Files.readString(f);
    Files.writeString(f, text.substring(0, text.length() / 2));
  }

  @Test
  void aLogOfRandomBytesShouldBeRefusedNotDrawnWithoutLatency() throws IOException {
    Blksim r = reportOfDamaged("random", HtmlReportTest::randomBytes);
    assertTrue(
        r.err().contains("latency.hlog: not text: not an HdrHistogram interval log"), r.err());
    Blksim ascii =
        reportOfDamaged(
            "ascii", d -> Files.writeString(d.resolve("latency.hlog"), "hello, world\n"));
    assertTrue(
        ascii.err().contains("latency.hlog: line 1 comes before the log's legend line"),
        ascii.err());
  }

  private static void randomBytes(Path dir) throws IOException {
    byte[] bytes = new byte[3000];
    new java.util.Random(31).nextBytes(bytes);
    Files.write(dir.resolve("latency.hlog"), bytes);
  }

  @Test
  void aDirectoryThatIsNotARunShouldBeOneLine() {
    Blksim r = Blksim.run("report", tmp.toString());
    assertEquals(2, r.status(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().contains("not a run directory"), r.err());
  }

  /** The start of a table row: a name, then figures (the row may go on). */
  static String row(String name, String... cells) {
    StringBuilder b = new StringBuilder("<tr><td>").append(name).append("</td>");
    for (int i = 0; i < cells.length; i++) {
      b.append("<td class=\"n\">").append(cells[i]);
      if (i < cells.length - 1 || !cells[i].endsWith(";")) {
        b.append("</td>");
      }
    }
    return b.toString();
  }

  /** The DATA object of a report page. */
  static Config data(String html) {
    int from = html.indexOf("const D = ") + "const D = ".length();
    return ConfigFactory.parseString(
        html.substring(from, html.indexOf(";\n", from)),
        ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
  }

  static Config json(Path file) {
    return ConfigFactory.parseFile(
        file.toFile(), ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
  }

  private static List<? extends List<?>> stacked(Config d) {
    return d.getList("cpus.stacked").unwrapped().stream().map(l -> (List<?>) l).toList();
  }

  private static double num(Object o) {
    return ((Number) o).doubleValue();
  }

  private static String fmt(String f, Object... v) {
    return String.format(Locale.ROOT, f, v);
  }
}

package blksim.loadgen.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code report.html} of a sweep directory ({@code blksim sweep --out DIR}): IOPS, p99 latency and
 * CPU time per I/O against each axis, one line for each value of the other axes, and for a patches
 * axis each patch set's change from the first value. One self-contained page, uPlot inlined as in a
 * run's report; the page's table names each point's own run directory.
 */
public final class SweepHtml {
  private SweepHtml() {}

  /** One point of the page: its values on the axes, its figures, and its directory (relative). */
  public record Row(
      List<String> values, double iops, double p99Us, double nsPerIo, String dir, String books) {}

  /**
   * Writes {@code dir/report.html}.
   *
   * @param title what the sweep is (its file and base command)
   * @param axes the axes' names, in order
   */
  public static Path write(Path dir, String title, List<String> axes, List<Row> rows)
      throws IOException {
    List<String> points = new ArrayList<>();
    HtmlTable table = new HtmlTable("points", header(axes));
    for (Row r : rows) {
      points.add(
          HtmlReport.obj(
              "v", HtmlReport.strs(r.values()),
              "iops", num(r.iops()),
              "p99", num(r.p99Us()),
              "ns", num(r.nsPerIo())));
      List<String> cells = new ArrayList<>();
      cells.add(Integer.toString(points.size() - 1));
      cells.addAll(r.values());
      cells.add(String.format(java.util.Locale.ROOT, "%.0f", r.iops()));
      cells.add(String.format(java.util.Locale.ROOT, "%.3f", r.p99Us()));
      cells.add(String.format(java.util.Locale.ROOT, "%.1f", r.nsPerIo()));
      cells.add(r.books());
      cells.add(r.dir());
      table.row(cells.toArray(String[]::new));
    }
    String data =
        HtmlReport.obj(
            "title", HtmlReport.str(title),
            "axes", HtmlReport.strs(axes),
            "points", "[" + String.join(",\n", points) + "]");
    String page =
        HtmlReport.resource("blksim/report/sweep.html")
            .replace("/*UPLOT_CSS*/", HtmlReport.resource(HtmlReport.UPLOT + "uPlot.min.css"))
            .replace("/*UPLOT_JS*/", HtmlReport.resource(HtmlReport.UPLOT + "uPlot.iife.min.js"))
            .replace("<!--POINTS-->", table.toString())
            .replace("/*DATA*/", data);
    Path out = dir.resolve("report.html");
    Files.writeString(out, page, StandardCharsets.UTF_8);
    return out;
  }

  private static String num(double d) {
    return String.format(java.util.Locale.ROOT, "%.6g", d);
  }

  private static String[] header(List<String> axes) {
    List<String> h = new ArrayList<>();
    h.add("point");
    h.addAll(axes);
    h.addAll(List.of("IOPS", "p99 µs", "ns/IO", "books", "run directory"));
    return h.toArray(String[]::new);
  }
}

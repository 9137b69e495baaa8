package blksim.loadgen.sweep;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A sweep's results, a row a point: the table on stdout, {@code results.csv} and {@code
 * results.json}. Every figure comes from the point's own {@code summary.json}, so the same points
 * give the same bytes whether computed now or found computed.
 */
public final class SweepTable {
  /** One point and what became of it: its figures, or why it has none. */
  public record Row(Point point, PointKey key, PointResult result, String failure) {
    /** "balanced", "UNBALANCED", or "failed: ..." */
    public String books() {
      if (result == null) {
        return "failed: " + failure;
      }
      return result.balanced() ? "balanced" : "UNBALANCED";
    }
  }

  private final List<Axis> axes;
  private final List<Row> rows;

  public SweepTable(List<Axis> axes, List<Row> rows) {
    this.axes = axes;
    this.rows = rows;
  }

  /** The table on stdout: the axes' values, then IOPS, MiB/s, ns/IO, p50/p99/p99.9 in µs, books. */
  public void print(PrintStream out) {
    List<String[]> lines = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of("point"));
    axes.forEach(a -> head.add(a.name()));
    head.addAll(List.of("IOPS", "MiB/s", "ns/IO", "p50 us", "p99 us", "p99.9 us", "books"));
    lines.add(head.toArray(String[]::new));
    for (Row r : rows) {
      List<String> cells = new ArrayList<>();
      cells.add(Integer.toString(r.point().index()));
      r.point().values().forEach(v -> cells.add(v.isEmpty() ? "-" : v));
      PointResult p = r.result();
      if (p == null) {
        cells.addAll(List.of("-", "-", "-", "-", "-", "-"));
      } else {
        cells.add(Long.toString(p.iops()));
        cells.add(String.format(Locale.ROOT, "%.1f", p.bwBytes() / 1048576.0));
        cells.add(String.format(Locale.ROOT, "%.1f", p.cpuNsPerIo()));
        cells.add(us(p.p50Ns()));
        cells.add(us(p.p99Ns()));
        cells.add(us(p.p999Ns()));
      }
      cells.add(r.books());
      lines.add(cells.toArray(String[]::new));
    }
    int[] width = new int[head.size()];
    for (String[] l : lines) {
      for (int i = 0; i < l.length; i++) {
        width[i] = Math.max(width[i], l[i].length());
      }
    }
    for (String[] l : lines) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < l.length; i++) {
        boolean left = i == l.length - 1 || (i > 0 && i <= axes.size());
        String cell = left ? pad(l[i], width[i], false) : pad(l[i], width[i], true);
        b.append(i == 0 ? "" : "  ").append(i == l.length - 1 ? l[i] : cell);
      }
      out.println(b.toString().stripTrailing());
    }
  }

  /** {@code results.csv}: a header line, then a row a point. */
  public void writeCsv(Path file) throws IOException {
    List<String> out = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of("point", "key"));
    axes.forEach(a -> head.add(a.name()));
    head.addAll(
        List.of(
            "iops",
            "bw_bytes",
            "cpu_ns_per_io",
            "p50_ns",
            "p99_ns",
            "p99.9_ns",
            "books",
            "ended",
            "command"));
    out.add(csvLine(head));
    for (Row r : rows) {
      List<String> cells = new ArrayList<>();
      cells.add(Integer.toString(r.point().index()));
      cells.add(r.key().hex());
      cells.addAll(r.point().values());
      PointResult p = r.result();
      if (p == null) {
        cells.addAll(List.of("", "", "", "", "", ""));
      } else {
        cells.add(Long.toString(p.iops()));
        cells.add(Long.toString(p.bwBytes()));
        cells.add(String.format(Locale.ROOT, "%.3f", p.cpuNsPerIo()));
        cells.add(Long.toString(p.p50Ns()));
        cells.add(Long.toString(p.p99Ns()));
        cells.add(Long.toString(p.p999Ns()));
      }
      cells.add(r.books());
      cells.add(p == null ? "" : p.ended());
      cells.add(r.point().commandLine());
      out.add(csvLine(cells));
    }
    Files.write(file, out, StandardCharsets.UTF_8);
  }

  /** {@code results.json}: the model version, the axes and their values, and a row a point. */
  public void writeJson(Path file, String sweep) throws IOException {
    StringBuilder b = new StringBuilder("{\n");
    b.append("  \"sweep\": ").append(q(sweep)).append(",\n");
    b.append("  \"blksim\": ").append(q(ModelVersion.BLKSIM)).append(",\n");
    b.append("  \"model_version\": ").append(q(ModelVersion.current())).append(",\n");
    b.append("  \"axes\": [");
    for (int i = 0; i < axes.size(); i++) {
      List<String> vs = new ArrayList<>();
      axes.get(i).values().forEach(v -> vs.add(q(v)));
      b.append(i == 0 ? "" : ", ")
          .append("{\"name\": ")
          .append(q(axes.get(i).name()))
          .append(", \"values\": [")
          .append(String.join(", ", vs))
          .append("]}");
    }
    b.append("],\n  \"points\": [\n");
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      PointResult p = r.result();
      b.append("    {\"point\": ").append(r.point().index());
      b.append(", \"key\": ").append(q(r.key().hex()));
      b.append(", \"values\": {");
      for (int a = 0; a < axes.size(); a++) {
        b.append(a == 0 ? "" : ", ")
            .append(q(axes.get(a).name()))
            .append(": ")
            .append(q(r.point().values().get(a)));
      }
      b.append("}");
      if (p != null) {
        b.append(", \"iops\": ").append(p.iops());
        b.append(", \"bw_bytes\": ").append(p.bwBytes());
        b.append(", \"cpu_ns_per_io\": ")
            .append(String.format(Locale.ROOT, "%.3f", p.cpuNsPerIo()));
        b.append(", \"latency_ns\": {\"p50\": ").append(p.p50Ns());
        b.append(", \"p99\": ").append(p.p99Ns());
        b.append(", \"p99.9\": ").append(p.p999Ns()).append("}");
        b.append(", \"ended\": ").append(q(p.ended()));
      }
      b.append(", \"books\": ").append(q(r.books()));
      b.append(", \"dir\": ").append(q("points/" + r.key().hex()));
      b.append(", \"command\": ").append(q(r.point().commandLine()));
      b.append(i == rows.size() - 1 ? "}\n" : "},\n");
    }
    b.append("  ]\n}\n");
    Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
  }

  private static String us(long ns) {
    return String.format(Locale.ROOT, "%.3f", ns / 1000.0);
  }

  private static String pad(String s, int w, boolean right) {
    String fill = " ".repeat(Math.max(0, w - s.length()));
    return right ? fill + s : s + fill;
  }

  private static String csvLine(List<String> cells) {
    List<String> out = new ArrayList<>();
    for (String c : cells) {
      boolean quote = c.contains(",") || c.contains("\"") || c.contains("\n") || c.contains(" ");
      out.add(quote ? "\"" + c.replace("\"", "\"\"") + "\"" : c);
    }
    return String.join(",", out);
  }

  private static String q(String s) {
    return blksim.loadgen.report.JsonReport.quote(s);
  }
}

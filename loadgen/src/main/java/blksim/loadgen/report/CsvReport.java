package blksim.loadgen.report;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A run's figures as CSV ({@code --csv}, a run directory's {@code summary.csv}, a compare
 * directory's {@code compare.csv}): a header line of {@link #COLUMNS}, then one row a run, each
 * figure as {@link JsonReport} writes it. Fields are quoted as RFC 4180 says (a field with a comma,
 * a quote or a line break in double quotes, its quotes doubled); lines end in CRLF. Nothing in a
 * row depends on wall time, so the same runs give the same bytes; {@code bench}'s rows add {@link
 * #BENCH_COLUMNS}, the wall-time figures it measures.
 */
public final class CsvReport {
  private CsvReport() {}

  /** The columns of every row, in order (docs/usage.md lists what each holds). */
  public static final List<String> COLUMNS =
      List.of(
          "command",
          "variant",
          "profile",
          "kernel",
          "patches",
          "io_engine",
          "blksim_command",
          "seed",
          "virtual_s",
          "ended",
          "iops",
          "bw_bytes_per_s",
          "ios_submitted",
          "ios_completed",
          "calls",
          "cpu_ns_per_io",
          "lat_mean_ns",
          "lat_p50_ns",
          "lat_p90_ns",
          "lat_p99_ns",
          "lat_p99_9_ns",
          "lat_p99_99_ns",
          "lat_max_ns",
          "books_balanced");

  /** The columns {@code bench} adds after {@link #COLUMNS}. */
  public static final List<String> BENCH_COLUMNS =
      List.of("sim_engine", "cpus", "run", "wall_s", "messages", "sim_ios_per_wall_s");

  /** One run and what it is: the command that ran it, and its variant (compare's label). */
  public record Row(String command, String variant, RunReport report) {}

  /** The CSV of {@code rows}: the header line, then a line a row. */
  public static String render(List<Row> rows) {
    StringBuilder b = new StringBuilder(256 * (rows.size() + 1));
    line(b, COLUMNS);
    for (Row r : rows) {
      line(b, fields(r));
    }
    return b.toString();
  }

  /** The CSV of one run. */
  public static String render(String command, String variant, RunReport r) {
    return render(List.of(new Row(command, variant, r)));
  }

  /** Writes the CSV of {@code rows} to {@code path}. */
  public static void write(List<Row> rows, Path path) throws IOException {
    Files.writeString(path, render(rows), StandardCharsets.UTF_8);
  }

  /** The CSV of {@code bench}'s runs, each with its {@link #BENCH_COLUMNS}. */
  public static String renderBench(List<BenchRow> rows) {
    List<String> header = new ArrayList<>(COLUMNS);
    header.addAll(BENCH_COLUMNS);
    StringBuilder b = new StringBuilder(256 * (rows.size() + 1));
    line(b, header);
    for (BenchRow r : rows) {
      List<String> f = fields(new Row("bench", "", r.report()));
      f.add(r.simEngine());
      f.add(Integer.toString(r.report().settings().cpu().count()));
      f.add(Integer.toString(r.run()));
      f.add(String.format(Locale.ROOT, "%.3f", r.report().wallNanos() / 1e9));
      f.add(Long.toString(r.report().result().messages()));
      f.add(String.format(Locale.ROOT, "%.0f", r.report().simIosPerWallSec()));
      line(b, f);
    }
    return b.toString();
  }

  /** One of bench's measured runs: its engine and number (the warm-up is not one). */
  public record BenchRow(String simEngine, int run, RunReport report) {}

  /** The fields of {@code row}, in the order of {@link #COLUMNS}. */
  static List<String> fields(Row row) {
    RunReport r = row.report();
    var s = r.settings();
    var res = r.result();
    String engine = JsonReport.ioEngine(s.ioUring());
    List<String> f = new ArrayList<>(COLUMNS.size() + BENCH_COLUMNS.size());
    f.add(row.command());
    f.add(row.variant());
    f.add(s.profile().name());
    f.add(s.kernel().preset());
    f.add(String.join(",", s.kernel().names()));
    f.add(engine);
    f.add(Summary.commandLine(s.ioUring()));
    f.add(Long.toString(s.run().seed()));
    f.add(BigDecimal.valueOf(s.run().runtimeNs(), 9).stripTrailingZeros().toPlainString());
    f.add(r.ending().complete() ? "runtime" : r.ending().early());
    f.add(Long.toString(r.iops()));
    f.add(Long.toString(r.bwBytes()));
    f.add(Long.toString(engine.equals("aio") ? r.accepted() : res.done()));
    f.add(Long.toString(r.completed()));
    f.add(Long.toString(res.calls()));
    f.add(String.format(Locale.ROOT, "%.3f", ProfileReport.nsPerIo(ProfileReport.lines(r))));
    f.add(String.format(Locale.ROOT, "%.3f", res.latencyNs().getMean()));
    f.add(Long.toString(r.latencyNs(50)));
    f.add(Long.toString(r.latencyNs(90)));
    f.add(Long.toString(r.latencyNs(99)));
    f.add(Long.toString(r.latencyNs(99.9)));
    f.add(Long.toString(r.latencyNs(99.99)));
    f.add(Long.toString(res.latencyNs().getMaxValue()));
    f.add(Boolean.toString(res.books().balanced()));
    return f;
  }

  private static void line(StringBuilder b, List<String> fields) {
    for (int i = 0; i < fields.size(); i++) {
      b.append(i == 0 ? "" : ",").append(quote(fields.get(i)));
    }
    b.append("\r\n");
  }

  /** {@code s} as an RFC 4180 field: in double quotes, its quotes doubled, when it needs them. */
  static String quote(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }
}

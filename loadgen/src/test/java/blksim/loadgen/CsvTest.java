package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --csv}: a header line, a row a run, the JSON's figures, the same bytes every time. */
class CsvTest {
  @TempDir Path tmp;

  /** The header every CSV starts with, as docs/usage.md documents it. */
  static final List<String> HEADER =
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

  private static final String[] SHORT = {
    "--engine", "sequential", "--set", "run.runtime=2ms", "-d32", "-s32", "-c32", "-b512", "-p1"
  };

  private Blksim ioUring(String... more) {
    List<String> args = new ArrayList<>(List.of("io_uring"));
    args.addAll(List.of(SHORT));
    args.addAll(List.of(more));
    args.add("/dev/nullb0");
    return Blksim.run(args.toArray(String[]::new));
  }

  @Test
  void aRunsRowShouldHoldTheFiguresOfItsJson() throws IOException {
    Path csv = tmp.resolve("run.csv");
    Path json = tmp.resolve("run.json");
    Blksim r =
        ioUring(
            "--patch",
            "bio-init-compound,end-request-fast-path",
            "--csv",
            csv.toString(),
            "--json",
            json.toString());
    assertEquals(0, r.status(), r.err());
    List<Map<String, String>> rows = rows(csv);
    assertEquals(1, rows.size());
    Map<String, String> row = rows.get(0);
    Config j = HtmlReportTest.json(json);
    assertEquals("io_uring", row.get("command"));
    assertEquals("", row.get("variant"));
    assertEquals(j.getString("cpu_profile"), row.get("profile"));
    assertEquals("", row.get("kernel"));
    // a field with a comma is quoted: the parser above gives it back whole
    assertEquals("end-request-fast-path,bio-init-compound", row.get("patches"));
    assertTrue(
        Files.readString(csv).contains(",\"end-request-fast-path,bio-init-compound\","),
        Files.readString(csv));
    assertEquals(j.getString("engine"), row.get("io_engine"));
    assertEquals(j.getString("blksim_command"), row.get("blksim_command"));
    assertEquals(j.getString("seed"), row.get("seed"));
    assertEquals(j.getLong("virtual_ns") / 1e9, Double.parseDouble(row.get("virtual_s")));
    assertEquals("0.002", row.get("virtual_s"));
    assertEquals(j.getString("ended"), row.get("ended"));
    assertEquals(j.getString("iops"), row.get("iops"));
    assertEquals(j.getString("bw_bytes"), row.get("bw_bytes_per_s"));
    assertEquals(j.getString("ios_submitted"), row.get("ios_submitted"));
    assertEquals(j.getString("ios_completed"), row.get("ios_completed"));
    assertEquals(j.getString("calls"), row.get("calls"));
    assertEquals(j.getString("cpu_ns_per_io"), row.get("cpu_ns_per_io"));
    assertEquals(j.getString("latency_ns.mean"), row.get("lat_mean_ns"));
    assertEquals(j.getString("latency_ns.p50"), row.get("lat_p50_ns"));
    assertEquals(j.getString("latency_ns.p90"), row.get("lat_p90_ns"));
    assertEquals(j.getString("latency_ns.p99"), row.get("lat_p99_ns"));
    assertEquals(j.getString("latency_ns.\"p99.9\""), row.get("lat_p99_9_ns"));
    assertEquals(j.getString("latency_ns.percentile.\"99.990000\""), row.get("lat_p99_99_ns"));
    assertEquals(j.getString("latency_ns.max"), row.get("lat_max_ns"));
    assertEquals(j.getString("books.balanced"), row.get("books_balanced"));
    // the summary prints the same IOPS
    assertTrue(r.out().contains(row.get("iops")), r.out());
  }

  @Test
  void theSameRunShouldGiveTheSameBytesAndItsDirectoryTheSameFile() throws IOException {
    Path one = tmp.resolve("one.csv");
    Path two = tmp.resolve("two.csv");
    Path dir = tmp.resolve("dir");
    assertEquals(0, ioUring("--csv", one.toString(), "--out", dir.toString()).status());
    assertEquals(0, ioUring("--csv", two.toString()).status());
    assertArrayEquals(Files.readAllBytes(one), Files.readAllBytes(two));
    assertArrayEquals(Files.readAllBytes(one), Files.readAllBytes(dir.resolve("summary.csv")));
    String text = Files.readString(one);
    assertTrue(text.startsWith(String.join(",", HEADER) + "\r\n"), text);
    assertTrue(text.endsWith("\r\n"), "RFC 4180 line ends");
  }

  @Test
  void aFailedRunShouldLeaveTheRowOfWhatRan() throws IOException {
    Path csv = tmp.resolve("failed.csv");
    Path dir = tmp.resolve("failed");
    Blksim r =
        ioUring(
            "--set",
            "books.break=throw",
            "--set",
            "books.throw-after=1000",
            "--csv",
            csv.toString(),
            "--out",
            dir.toString());
    assertEquals(3, r.status(), r.err());
    assertTrue(r.err().contains("what ran is in " + csv + " and " + dir), r.err());
    Map<String, String> row = rows(csv).get(0);
    assertTrue(row.get("ended").startsWith("failed: "), row.toString());
    assertEquals(List.of(row), rows(dir.resolve("summary.csv")));
  }

  @Test
  void runShouldNameItsCommand() throws IOException {
    Path csv = tmp.resolve("run.csv");
    Blksim r =
        Blksim.run(
            "run",
            "../config/scenarios/default.conf",
            "--engine",
            "sequential",
            "--set",
            "run.runtime=1ms",
            "--csv",
            csv.toString());
    assertEquals(0, r.status(), r.err());
    assertEquals("run", rows(csv).get(0).get("command"));
  }

  @Test
  void compareShouldGiveARowAVariantWithItsJsonsFigures() throws IOException {
    Path csv = tmp.resolve("cmp.csv");
    Path json = tmp.resolve("cmp.json");
    Path dir = tmp.resolve("out");
    Blksim r =
        Blksim.run(
            "compare",
            "--engine",
            "sequential",
            "--set",
            "run.runtime=1ms",
            "--patch",
            "bdev-cache-in-file,end-request-fast-path",
            "--csv",
            csv.toString(),
            "--json",
            json.toString(),
            "--out",
            dir.toString(),
            "--",
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    List<Map<String, String>> rows = rows(csv);
    List<String> variants = rows.stream().map(m -> m.get("variant")).toList();
    assertEquals(
        List.of(
            "A (baseline)",
            "A + bdev-cache-in-file",
            "A + end-request-fast-path",
            "B (A + bdev-cache-in-file, end-request-fast-path)"),
        variants);
    Config j = HtmlReportTest.json(json);
    sameFigures(j.getConfig("baseline"), rows.get(0));
    sameFigures(j.getConfig("patched"), rows.get(3));
    List<? extends Config> alone = j.getConfigList("alone");
    for (int i = 0; i < alone.size(); i++) {
      Map<String, String> row = rows.get(1 + i);
      assertEquals(alone.get(i).getString("variant"), row.get("variant"));
      assertEquals(alone.get(i).getString("iops"), row.get("iops"));
      assertEquals(alone.get(i).getString("cpu_ns_per_io"), row.get("cpu_ns_per_io"));
    }
    for (Map<String, String> row : rows) {
      assertEquals("compare", row.get("command"));
    }
    assertEquals("", rows.get(0).get("patches"));
    assertEquals("bdev-cache-in-file,end-request-fast-path", rows.get(3).get("patches"));
    assertArrayEquals(Files.readAllBytes(csv), Files.readAllBytes(dir.resolve("compare.csv")));
    assertEquals(
        List.of(rows.get(0)), rows(dir.resolve("A").resolve("summary.csv")), "A's directory");
    assertEquals(
        List.of(rows.get(3)), rows(dir.resolve("B").resolve("summary.csv")), "B's directory");
  }

  @Test
  void compareOnEachProfileShouldGiveARowAProfileAndVariant() throws IOException {
    Path csv = tmp.resolve("profiles.csv");
    Path json = tmp.resolve("profiles.json");
    Path dir = tmp.resolve("all");
    Blksim r =
        Blksim.run(
            "compare",
            "--engine",
            "sequential",
            "--set",
            "run.runtime=1ms",
            "--profile",
            "begunkov-2021,zen2-3970x",
            "--patch",
            "bio-init-compound",
            "--csv",
            csv.toString(),
            "--json",
            json.toString(),
            "--out",
            dir.toString(),
            "--",
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    List<Map<String, String>> rows = rows(csv);
    assertEquals(4, rows.size());
    List<? extends Config> profiles = HtmlReportTest.json(json).getConfigList("profiles");
    for (int i = 0; i < profiles.size(); i++) {
      Config p = profiles.get(i);
      Map<String, String> a = rows.get(2 * i);
      Map<String, String> b = rows.get(2 * i + 1);
      assertEquals(p.getString("profile"), a.get("profile"));
      assertEquals(p.getString("profile"), b.get("profile"));
      assertEquals("A (baseline)", a.get("variant"));
      assertEquals("B (A + bio-init-compound)", b.get("variant"));
      assertEquals(p.getString("a_iops"), a.get("iops"));
      assertEquals(p.getString("b_iops"), b.get("iops"));
      assertEquals(p.getString("a_cpu_ns_per_io"), a.get("cpu_ns_per_io"));
      assertEquals(p.getString("b_cpu_ns_per_io"), b.get("cpu_ns_per_io"));
      sameFigures(p.getConfig("compare.baseline"), a);
      sameFigures(p.getConfig("compare.patched"), b);
      assertEquals(List.of(a, b), rows(dir.resolve(p.getString("profile")).resolve("compare.csv")));
    }
    assertArrayEquals(Files.readAllBytes(csv), Files.readAllBytes(dir.resolve("compare.csv")));
  }

  @Test
  void benchShouldGiveARowAMeasuredRunWithItsWallTimeColumns() throws IOException {
    Path csv = tmp.resolve("bench.csv");
    Path json = tmp.resolve("bench.json");
    Blksim r =
        Blksim.run(
            "bench",
            "--engine",
            "sequential",
            "--runs",
            "2",
            "--set",
            "run.runtime=1ms",
            "--csv",
            csv.toString(),
            "--json",
            json.toString());
    assertEquals(0, r.status(), r.err());
    List<String> header = new ArrayList<>(HEADER);
    header.addAll(List.of("sim_engine", "cpus", "run", "wall_s", "messages", "sim_ios_per_wall_s"));
    assertEquals(header, parse(Files.readString(csv)).get(0));
    List<Map<String, String>> rows = rows(csv);
    List<? extends Config> runs = HtmlReportTest.json(json).getConfigList("bench_runs");
    assertEquals(runs.size(), rows.size());
    for (int i = 0; i < runs.size(); i++) {
      Map<String, String> row = rows.get(i);
      assertEquals("bench", row.get("command"));
      assertEquals(runs.get(i).getString("engine"), row.get("sim_engine"));
      assertEquals(runs.get(i).getString("cpus"), row.get("cpus"));
      assertEquals(runs.get(i).getString("run"), row.get("run"));
      assertEquals(runs.get(i).getString("messages"), row.get("messages"));
      assertEquals(runs.get(i).getString("ios_completed"), row.get("ios_completed"));
      assertEquals(runs.get(i).getString("sim_ios_per_wall_sec"), row.get("sim_ios_per_wall_s"));
    }
  }

  /** The figures a run's JSON and its CSV row both hold. */
  private static void sameFigures(Config j, Map<String, String> row) {
    assertEquals(j.getString("cpu_profile"), row.get("profile"));
    assertEquals(j.getString("blksim_command"), row.get("blksim_command"));
    assertEquals(j.getString("seed"), row.get("seed"));
    assertEquals(j.getString("iops"), row.get("iops"));
    assertEquals(j.getString("bw_bytes"), row.get("bw_bytes_per_s"));
    assertEquals(j.getString("ios_submitted"), row.get("ios_submitted"));
    assertEquals(j.getString("ios_completed"), row.get("ios_completed"));
    assertEquals(j.getString("cpu_ns_per_io"), row.get("cpu_ns_per_io"));
    assertEquals(j.getString("latency_ns.mean"), row.get("lat_mean_ns"));
    assertEquals(j.getString("latency_ns.p50"), row.get("lat_p50_ns"));
    assertEquals(j.getString("latency_ns.p99"), row.get("lat_p99_ns"));
    assertEquals(j.getString("latency_ns.max"), row.get("lat_max_ns"));
    assertEquals(j.getString("books.balanced"), row.get("books_balanced"));
  }

  /** The rows of {@code csv}, each by column name; its header must be {@link #HEADER}. */
  static List<Map<String, String>> rows(Path csv) throws IOException {
    List<List<String>> lines = parse(Files.readString(csv, StandardCharsets.UTF_8));
    List<String> header = lines.get(0);
    assertEquals(HEADER, header.subList(0, HEADER.size()), "the header");
    List<Map<String, String>> rows = new ArrayList<>();
    for (List<String> line : lines.subList(1, lines.size())) {
      assertEquals(header.size(), line.size(), "a field a column: " + line);
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < header.size(); i++) {
        row.put(header.get(i), line.get(i));
      }
      rows.add(row);
    }
    return rows;
  }

  /** RFC 4180: records end in CRLF; a quoted field may hold commas, CRLF and doubled quotes. */
  static List<List<String>> parse(String text) {
    List<List<String>> records = new ArrayList<>();
    List<String> record = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        record.add(field.toString());
        field.setLength(0);
      } else if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
        record.add(field.toString());
        field.setLength(0);
        records.add(record);
        record = new ArrayList<>();
        i++;
      } else {
        field.append(c);
      }
    }
    assertTrue(record.isEmpty() && field.length() == 0, "the last record ends in CRLF");
    return records;
  }
}

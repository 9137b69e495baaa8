package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code blksim sweep}: its table and files, points reused by key, and each point as alone. */
class SweepTest {
  @TempDir Path tmp;

  private Path sweepFile(String cpus) throws IOException {
    Path f = tmp.resolve("s.conf");
    Files.writeString(
        f,
        "base = \"io_uring -d32 -s32 -c32 -b512 -p1 /dev/nullb0\"\n"
            + "set { run.runtime = 2ms, engine.kind = sequential }\n"
            + "axes {\n"
            + "  cpus = "
            + cpus
            + "\n"
            + "  patches = [\"\", \"bdev-cache-in-file\"]\n"
            + "}\n");
    return f;
  }

  private Blksim sweep(Path file, String... more) {
    List<String> args =
        new ArrayList<>(List.of("sweep", file.toString(), "--out", out().toString()));
    args.addAll(List.of(more));
    return Blksim.run(args.toArray(String[]::new));
  }

  private Path out() {
    return tmp.resolve("out");
  }

  private static String lastLine(Blksim b) {
    List<String> l = b.lines().stream().filter(s -> !s.isEmpty()).toList();
    return l.get(l.size() - 1);
  }

  @Test
  void aSweepTabulatesItsPointsAndComputesOnlyThoseNotYetComputed() throws IOException {
    Path f = sweepFile("[1, 2]");
    Blksim first = sweep(f);
    assertEquals(0, first.status(), first.err());
    assertTrue(
        lastLine(first).startsWith("sweep: 4 points (4 distinct), 4 computed, 0 found"),
        lastLine(first));
    List<String> table = first.lines().subList(0, 5);
    assertTrue(table.get(0).startsWith("point  cpus  patches"), table.get(0));
    assertTrue(table.get(4).contains("bdev-cache-in-file") && table.get(4).endsWith("balanced"));
    assertEquals(5, Files.readAllLines(out().resolve("results.csv")).size());
    String csv = Files.readString(out().resolve("results.csv"));
    String json = Files.readString(out().resolve("results.json"));
    String html = Files.readString(out().resolve("report.html"));
    assertTrue(html.contains("uPlot") && html.contains("\"axes\": [\"cpus\", \"patches\"]"));

    Blksim again = sweep(f);
    assertEquals(0, again.status(), again.err());
    assertTrue(
        lastLine(again).startsWith("sweep: 4 points (4 distinct), 0 computed, 4 found"),
        lastLine(again));
    assertEquals(
        first.out().substring(0, first.out().indexOf("sweep: ")),
        again.out().substring(0, again.out().indexOf("sweep: ")));
    assertEquals(csv, Files.readString(out().resolve("results.csv")));
    assertEquals(json, Files.readString(out().resolve("results.json")));
    assertEquals(html, Files.readString(out().resolve("report.html")));

    Blksim wider = sweep(sweepFile("[1, 2, 3]"));
    assertTrue(
        lastLine(wider).startsWith("sweep: 6 points (6 distinct), 2 computed, 4 found"),
        lastLine(wider));
    Blksim forced = sweep(sweepFile("[1, 2]"), "--force");
    assertTrue(
        lastLine(forced).startsWith("sweep: 4 points (4 distinct), 4 computed, 0 found"),
        lastLine(forced));
    assertEquals(csv, Files.readString(out().resolve("results.csv")));
  }

  @Test
  void aPointIsTheRunOfItsCommandLineAlone() throws IOException {
    Blksim s = sweep(sweepFile("[2]"));
    assertEquals(0, s.status(), s.err());
    String row = Files.readAllLines(out().resolve("results.csv")).get(2);
    String key = row.split(",")[1];
    String command = row.substring(row.indexOf("\"blksim ") + 8, row.length() - 1);
    List<String> args = new ArrayList<>(shellWords(command));
    Path alone = tmp.resolve("alone");
    args.addAll(List.of("--out", alone.toString()));
    Blksim run = Blksim.run(args.toArray(String[]::new));
    assertEquals(0, run.status(), run.err());
    Path point = out().resolve("points").resolve(key);
    for (String file : List.of("config.conf", "latency.hgrm", "latency.hlog", "profile.txt")) {
      assertEquals(
          Files.readString(alone.resolve(file)), Files.readString(point.resolve(file)), file);
    }
    assertEquals(
        withoutWall(alone.resolve("summary.json")), withoutWall(point.resolve("summary.json")));
  }

  @Test
  void pointsRunSideBySideGiveWhatTheyGiveOneAtATime() throws IOException {
    Path f = sweepFile("[1, 2, 3]");
    assertEquals(0, sweep(f, "--jobs", "1").status());
    String one = Files.readString(out().resolve("results.csv"));
    assertEquals(0, sweep(f, "--jobs", "3", "--force").status());
    assertEquals(one, Files.readString(out().resolve("results.csv")));
  }

  @Test
  void whatAnInterruptedSweepLeftHalfWrittenIsClearedAndComputedAgain() throws IOException {
    Path f = sweepFile("[1]");
    Path partial = out().resolve("points").resolve(".partial-0123-1-1");
    Files.createDirectories(partial);
    Files.writeString(partial.resolve("latency.hlog"), "half");
    Blksim s = sweep(f);
    assertEquals(0, s.status(), s.err());
    assertFalse(Files.exists(partial));
    try (Stream<Path> points = Files.list(out().resolve("points"))) {
      assertEquals(2, points.count());
    }
  }

  @Test
  void badInputIsOneLineAndExitTwoBeforeAnyPointRuns() throws IOException {
    Path f = tmp.resolve("bad.conf");
    Files.writeString(f, "base = \"io_uring /dev/nullb0\"\naxes { \"-d\" = [8, abc] }\n");
    Blksim b = sweep(f);
    assertEquals(2, b.status());
    assertEquals("", b.out());
    assertEquals(1, b.errLines().size(), b.err());
    assertTrue(b.err().contains("point 1 (-d='abc')"), b.err());
    assertFalse(Files.exists(out().resolve("points")), "nothing ran");
    Blksim missing = Blksim.run("sweep", tmp.resolve("none.conf").toString());
    assertEquals(2, missing.status());
    assertTrue(missing.err().contains("no such sweep file"), missing.err());
    Blksim jobs = sweep(sweepFile("[1]"), "--jobs", "0");
    assertEquals(2, jobs.status());
    assertTrue(jobs.err().contains("--jobs 0: accepted 1 to 256"), jobs.err());
  }

  @Test
  void theShippedSweepFilesResolveEveryPoint() throws IOException {
    List<Path> files;
    try (Stream<Path> all = Files.list(Path.of("..", "config", "sweeps"))) {
      files = all.filter(p -> p.toString().endsWith(".conf")).sorted().toList();
    }
    assertTrue(files.size() >= 2, files.toString());
    for (Path f : files) {
      Blksim b = Blksim.run("sweep", f.toString(), "--list", "--out", tmp.resolve("l").toString());
      assertEquals(0, b.status(), f + ": " + b.err());
      long points = b.lines().stream().filter(l -> l.contains("to compute  blksim ")).count();
      assertTrue(points >= 12, f + ": " + points + " points");
    }
  }

  private static String withoutWall(Path summary) throws IOException {
    return Files.readAllLines(summary).stream()
        .filter(l -> !l.contains("\"wall_sec\"") && !l.contains("\"sim_ios_per_wall_sec\""))
        .collect(Collectors.joining("\n"));
  }

  /** The words of a command line as {@link blksim.loadgen.sweep.Point#commandLine} quotes them. */
  private static List<String> shellWords(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (char c : line.toCharArray()) {
      if (c == '\'') {
        quoted = !quoted;
        any = true;
      } else if (c == ' ' && !quoted) {
        if (any) {
          words.add(w.toString());
        }
        w.setLength(0);
        any = false;
      } else {
        w.append(c);
        any = true;
      }
    }
    if (any) {
      words.add(w.toString());
    }
    return words;
  }
}

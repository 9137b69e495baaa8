package blksim.loadgen.bad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import blksim.loadgen.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Generated input, a thousand tries per kind: every case either runs (exit 0) or is refused with
 * exit 2 and one line on stderr and nothing on stdout; never a trace, exit 1 or 3, or a run that
 * does not end within a bounded wall time. Runs are short (20 us of virtual time, the sequential
 * engine) so that the properties stay fast; the seeds are fixed, so CI sees the same cases.
 */
class GeneratedBadInputTest {
  /** The most wall time a case may take, refused or run: a hang fails instead of waiting. */
  private static final long WALL_LIMIT_S = 30;

  private static final ExecutorService RUNNER = Executors.newSingleThreadExecutor();

  /** Appended to every case: short virtual runs on the plain engine. */
  private static final List<String> SHORT =
      List.of("--engine", "sequential", "--set", "run.runtime=20us");

  @AfterContainer
  static void stop() {
    RUNNER.shutdownNow();
  }

  @Provide
  Arbitrary<List<String>> ioUringCommandLines() {
    Arbitrary<List<String>> parts =
        GoodInputs.withOneFault(
            Arbitraries.oneOf(GoodInputs.goodIoUringFlag(), GoodInputs.goodRunOption()),
            Arbitraries.oneOf(BadInputs.ioUringFlag(), BadInputs.runOption()));
    Arbitrary<List<String>> devices =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(8, Arbitraries.just(List.of("/dev/nullb0"))),
            net.jqwik.api.Tuple.of(2, BadInputs.file().list().ofMaxSize(2)));
    return Combinators.combine(parts, devices).as(GeneratedBadInputTest::ioUring);
  }

  private static List<String> ioUring(List<String> parts, List<String> files) {
    List<String> args = new ArrayList<>(List.of("io_uring"));
    args.addAll(parts);
    args.addAll(SHORT);
    args.addAll(files);
    return args;
  }

  @Property(tries = 1000, seed = "20261201")
  void commandLinesShouldRunOrBeRefusedInOneLine(@ForAll("ioUringCommandLines") List<String> args) {
    check(args);
  }

  @Property(tries = 1000, seed = "20261202")
  void hoconScenariosShouldRunOrBeRefusedInOneLine(@ForAll("scenarios") String hocon)
      throws IOException {
    Path file = Files.createTempFile("blksim-bad", ".conf");
    try {
      Files.write(file, hocon.getBytes(StandardCharsets.UTF_8));
      List<String> args = new ArrayList<>(List.of("run", file.toString()));
      args.addAll(SHORT);
      check(args);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Provide
  Arbitrary<String> scenarios() {
    return BadInputs.hocon();
  }

  @Property(tries = 1000, seed = "20261203")
  void nullBlkParametersShouldRunOrBeRefusedInOneLine(@ForAll("nullBlk") String params) {
    List<String> args = new ArrayList<>(List.of("io_uring", "-d32", "--null-blk", params));
    args.addAll(SHORT);
    args.add("/dev/nullb0");
    check(args);
  }

  @Provide
  Arbitrary<String> nullBlk() {
    return BadInputs.nullBlkParams();
  }

  @Property(tries = 1000, seed = "20261204")
  void dmTablesShouldRunOrBeRefusedInOneLine(
      @ForAll("dmTables") String table, @ForAll("polled") String polled) {
    List<String> args =
        new ArrayList<>(
            List.of("io_uring", "-d32", polled, "--kernel", "5.18", "--dm-table", table));
    args.addAll(SHORT);
    args.add("/dev/dm-0");
    check(args);
  }

  @Provide
  Arbitrary<String> dmTables() {
    return Combinators.combine(
            GoodInputs.dmLine().list().ofMinSize(1).ofMaxSize(2), Arbitraries.of(";", "\n"))
        .as((lines, sep) -> String.join(sep, lines));
  }

  @Provide
  Arbitrary<String> polled() {
    return Arbitraries.of("-p0", "-p1");
  }

  @Property(tries = 300, seed = "20261205")
  void patchFilesShouldRunOrBeRefusedInOneLine(@ForAll("patchFiles") List<String> patch)
      throws IOException {
    Path file = Files.createTempFile("blksim-patch", ".conf");
    try {
      Files.write(file, patch.get(0).getBytes(StandardCharsets.UTF_8));
      List<String> args =
          new ArrayList<>(
              List.of(
                  "io_uring", "-d32", "--patch-file", file.toString(), "--patch", patch.get(1)));
      args.addAll(SHORT);
      args.add("/dev/nullb0");
      check(args);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Provide
  Arbitrary<List<String>> patchFiles() {
    return BadInputs.patchFile();
  }

  @Property(tries = 300, seed = "20261206")
  void sweepFilesShouldRunOrBeRefusedInOneLine(@ForAll("sweepFiles") String sweep)
      throws IOException {
    Path dir = Files.createTempDirectory("blksim-sweep");
    try {
      Path file = dir.resolve("s.conf");
      Files.write(file, sweep.getBytes(StandardCharsets.UTF_8));
      check(
          List.of("sweep", file.toString(), "--out", dir.resolve("out").toString(), "--jobs", "1"));
    } finally {
      blksim.loadgen.sweep.PointStore.deleteTree(dir);
    }
  }

  /**
   * Sweep files, mostly plausible: a base (good, or not a command), short sequential runs, one or
   * two axes of a known or unknown name with values from lists, ranges and objects of numbers good
   * and bad, sometimes zipped, sometimes with a key that a sweep file does not have.
   */
  @Provide
  Arbitrary<String> sweepFiles() {
    Arbitrary<String> base =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(
                8, Arbitraries.just("base = \"io_uring -d8 -s8 -c8 -b512 -p1 /dev/nullb0\"")),
            net.jqwik.api.Tuple.of(
                1,
                Arbitraries.of("base = \"fio job.fio\"", "base = 3", "base = \"io_uring 'x\"", "")),
            net.jqwik.api.Tuple.of(1, Arbitraries.just("base = [io_uring, -d8, /dev/nullb0]")));
    Arbitrary<String> name =
        Arbitraries.of(
            "cpus",
            "patches",
            "profile",
            "kernel",
            "seed",
            "null-blk",
            "\"-d\"",
            "\"-b\"",
            "\"-n\"",
            "\"--cpus\"",
            "io-uring.depth",
            "queue.nomerges",
            "depth",
            "\"-q\"",
            "\"--out\"",
            "null-blk.irqmode");
    Arbitrary<String> value = BadInputs.number().map(GeneratedBadInputTest::hoconString);
    Arbitrary<String> values =
        Arbitraries.oneOf(
            value.list().ofMinSize(0).ofMaxSize(2).map(l -> "[" + String.join(", ", l) + "]"),
            Combinators.combine(BadInputs.number(), BadInputs.number())
                .as((a, b) -> "\"" + a.strip() + ".." + b.strip() + "\"")
                .map(v -> v.replace("\n", "")),
            Arbitraries.of(
                "{ from = 1, to = 2 }",
                "{ from = 1, to = 4, times = 2 }",
                "{ from = 2, to = 1 }",
                "{ to = 2 }",
                "[[1]]",
                "[\"\"]",
                "{}",
                "\"bdev-cache-in-file\"",
                "[begunkov-2021, nosuch]",
                "[\"5.15\", \"6.1\"]",
                "[\"irqmode=0\", \"irqmode=9\"]"));
    Arbitrary<String> axis = Combinators.combine(name, values).as((n, v) -> "  " + n + " = " + v);
    Arbitrary<String> extra =
        Arbitraries.of(
            "",
            "",
            "",
            "combine = zip",
            "combine = all",
            "sets = 1",
            "set = 3",
            "patch-files = [nosuch.conf]");
    return Combinators.combine(base, axis.list().ofMinSize(0).ofMaxSize(2), extra)
        .as(GeneratedBadInputTest::sweepText);
  }

  private static String hoconString(String v) {
    return com.typesafe.config.ConfigValueFactory.fromAnyRef(v)
        .render(com.typesafe.config.ConfigRenderOptions.concise());
  }

  private static String sweepText(String base, List<String> axes, String extra) {
    return base
        + "\nset { run.runtime = 20us, engine.kind = sequential }\n"
        + extra
        + "\naxes {\n"
        + String.join("\n", axes)
        + "\n}\n";
  }

  private static int[] run(String[] argv, ByteArrayOutputStream out, ByteArrayOutputStream err) {
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      return new int[] {Main.run(argv, o, e)};
    }
  }

  /** The README's promise for one case. */
  static void check(List<String> args) {
    String[] argv = args.toArray(String[]::new);
    String what = String.join(" ", args).replace("\n", "\\n");
    Future<int[]> status;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    status = RUNNER.submit(() -> run(argv, out, err));
    int code;
    try {
      code = status.get(WALL_LIMIT_S, TimeUnit.SECONDS)[0];
    } catch (TimeoutException e) {
      status.cancel(true);
      fail(what + ": no end after " + WALL_LIMIT_S + " s of wall time");
      return;
    } catch (Exception e) {
      fail(what + ": " + e);
      return;
    }
    String stderr = err.toString(StandardCharsets.UTF_8);
    net.jqwik.api.statistics.Statistics.collect(code == 0 ? "runs" : "refused");
    String stdout = out.toString(StandardCharsets.UTF_8);
    assertTrue(code == 0 || code == 2, what + ": exit " + code + ": " + stderr);
    assertFalse(stderr.contains("\tat "), what + ": a trace: " + stderr);
    assertFalse(stderr.contains("Exception"), what + ": a Java class name: " + stderr);
    if (code == 2) {
      assertEquals(1, stderr.strip().split("\n").length, what + ": not one line: " + stderr);
      assertTrue(stderr.endsWith("\n") && !stderr.isBlank(), what + ": " + stderr);
      assertEquals("", stdout, what + ": something on stdout with the refusal");
    } else {
      assertEquals("", stderr, what + ": stderr of a run that ended well");
    }
  }
}

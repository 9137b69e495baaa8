package blksim.loadgen.bad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.loadgen.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Generated bad perf files for {@code blksim profile import} and {@code profile diff}: truncated
 * lines, garbage columns, shares without their percent sign, shares past 100 % alone or summed,
 * empty files. Each is refused before any run: exit 2, one line on stderr, nothing on stdout.
 */
class GeneratedBadPerfTest {
  private static final String GOOD =
      "+    5.56%  io_uring  [kernel.vmlinux]  [k] blk_mq_submit_bio";

  @Provide
  Arbitrary<String> badPerfFiles() {
    Arbitrary<String> empty =
        Arbitraries.of("", "\n\n", "   \n", "# Samples: 1M\n#\n", "Before:\nAfter:\n");
    // a good line cut before its symbol, or inside its share
    Arbitrary<String> truncated =
        Arbitraries.integers()
            .between(0, GOOD.indexOf('%') + 1)
            .map(n -> GOOD.substring(0, n) + "\n");
    // prose and columns with no share in them
    Arbitrary<String> garbage =
        Arbitraries.strings()
            .withCharRange(' ', '~')
            .excludeChars('%')
            .ofMinLength(1)
            .ofMaxLength(80)
            .list()
            .ofMinSize(1)
            .ofMaxSize(6)
            .map(l -> String.join("\n", l));
    Arbitrary<String> noPercent =
        Arbitraries.doubles()
            .between(0.01, 99)
            .ofScale(2)
            .list()
            .ofMinSize(1)
            .ofMaxSize(8)
            .map(GeneratedBadPerfTest::withoutPercent);
    Arbitrary<String> huge =
        Arbitraries.bigIntegers()
            .between(java.math.BigInteger.valueOf(101), java.math.BigInteger.TEN.pow(40))
            .map(
                n -> GOOD + "\n+  " + n + ".25%  io_uring  [kernel.vmlinux]  [k] io_submit_sqes\n");
    Arbitrary<String> over100 =
        Arbitraries.doubles()
            .between(10, 100)
            .ofScale(2)
            .list()
            .ofMinSize(2)
            .ofMaxSize(12)
            .filter(l -> l.stream().mapToDouble(Double::doubleValue).sum() > 101)
            .map(GeneratedBadPerfTest::overHundred);
    return Arbitraries.oneOf(empty, truncated, garbage, noPercent, huge, over100);
  }

  /** Report lines whose overheads have no percent sign. */
  private static String withoutPercent(List<Double> overheads) {
    StringBuilder b = new StringBuilder();
    for (double d : overheads) {
      b.append("+    ").append(d).append("  io_uring  [kernel.vmlinux]  [k] f\n");
    }
    return b.toString();
  }

  /** A report without a Children column whose overheads add up to more than 100 %. */
  private static String overHundred(List<Double> overheads) {
    StringBuilder b = new StringBuilder("  Overhead  Command  Shared Object  Symbol\n");
    int i = 0;
    for (double d : overheads) {
      b.append(
          String.format(
              java.util.Locale.ROOT, "+ %6.2f%%  io_uring  [kernel.vmlinux]  [k] f%d%n", d, i++));
    }
    return b.toString();
  }

  @Provide
  Arbitrary<List<String>> badArguments() {
    Arbitrary<List<String>> iops =
        Arbitraries.of("0", "-5", "abc", "1e400", "NaN", "4.25G", "", "1,000", "Infinity")
            .map(v -> List.of("--iops", v, "--name", "box"));
    Arbitrary<List<String>> names =
        Arbitraries.of("Box", "my box", "a.b", "-x", "", "begunkov-2021", "x".repeat(70), "é")
            .map(v -> List.of("--iops", "4M", "--name", v));
    Arbitrary<List<String>> bases =
        Arbitraries.of("nope", "zen2", "", "begunkov")
            .map(v -> List.of("--iops", "4M", "--name", "box", "--base", v));
    Arbitrary<List<String>> cpus =
        Arbitraries.of("zen9", "zen2-3970x", "", "SKYLAKE")
            .map(v -> List.of("--iops", "4M", "--name", "box", "--cpu", v));
    return Arbitraries.oneOf(iops, names, bases, cpus);
  }

  @Property(tries = 300, seed = "20261210")
  void badPerfReportsAreRefusedInOneLine(@ForAll("badPerfFiles") String text) throws IOException {
    Path f = Files.createTempFile("blksim-perf", ".txt");
    try {
      Files.writeString(f, text);
      check(List.of("profile", "import", "--perf", f.toString(), "--iops", "4M", "--name", "box"));
    } finally {
      Files.deleteIfExists(f);
    }
  }

  @Property(tries = 150, seed = "20261211")
  void badPerfDiffsAreRefusedInOneLine(@ForAll("badPerfFiles") String text) throws IOException {
    Path f = Files.createTempFile("blksim-perf", ".diff");
    try {
      // a perf diff's Baseline may stand alone: keep only the cases with no share at all
      Files.writeString(f, text.replaceAll("\\d+(\\.\\d+)?%", "x"));
      check(List.of("profile", "diff", "--perf-diff", f.toString()));
    } finally {
      Files.deleteIfExists(f);
    }
  }

  @Property(tries = 120, seed = "20261212")
  void badArgumentsAreRefusedInOneLine(
      @ForAll("badArguments") List<String> args, @ForAll boolean missingFile) throws IOException {
    Path f = Files.createTempFile("blksim-perf", ".txt");
    try {
      Files.writeString(f, GOOD + "\n");
      if (missingFile) {
        Files.delete(f);
      }
      List<String> all =
          new java.util.ArrayList<>(List.of("profile", "import", "--perf", f.toString()));
      all.addAll(args);
      check(all);
    } finally {
      Files.deleteIfExists(f);
    }
  }

  private static void check(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      status = Main.run(args.toArray(String[]::new), o, e);
    }
    String stderr = err.toString(StandardCharsets.UTF_8);
    assertEquals(2, status, args + ": " + stderr);
    assertEquals(1, stderr.strip().split("\n").length, args + ": " + stderr);
    assertFalse(stderr.contains("\tat "), stderr);
    assertFalse(stderr.contains("Exception"), stderr);
    assertTrue(out.toString(StandardCharsets.UTF_8).isEmpty(), args + ": " + out);
  }
}

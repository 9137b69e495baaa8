package blksim.loadgen.cli;

import blksim.config.ConfigError;
import blksim.loadgen.ExitStatus;
import blksim.loadgen.fuzz.Case;
import blksim.loadgen.fuzz.CaseLine;
import blksim.loadgen.fuzz.Differential;
import blksim.loadgen.fuzz.FuzzReport;
import blksim.loadgen.fuzz.Fuzzer;
import blksim.loadgen.fuzz.Generator;
import blksim.loadgen.fuzz.JarBuild;
import blksim.loadgen.fuzz.Oracles;
import blksim.loadgen.fuzz.OtherBuild;
import blksim.loadgen.fuzz.ThisBuild;
import blksim.loadgen.fuzz.Verdict;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code blksim fuzz}: generated scenarios, each checked by the books, a rerun, the second engine,
 * the accounting and a metamorphic relation; or, with {@code --against}, compared byte for byte
 * with another build. Failures are shrunk to a command line.
 */
@Command(
    name = "fuzz",
    description = {
      "Run generated scenarios through every oracle; shrink each failure to a command line.",
      "With --against REV: compare every scenario's output with the build of commit REV."
    })
public final class FuzzCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;
  private final PrintStream err;

  @Option(names = "--count", paramLabel = "N", description = "Cases to run (default 1000).")
  long count = 1000;

  @Option(names = "--seed", paramLabel = "S", description = "Root seed of the cases (default 1).")
  long seed = 1;

  @Option(names = "--from", paramLabel = "I", description = "First case number (default 0).")
  long from = 0;

  @Option(
      names = "--jobs",
      paramLabel = "J",
      description = "Cases run at once (default: the number of cores).")
  Integer jobs;

  @Option(
      names = "--against",
      paramLabel = "REV",
      description = "Compare with the build of this commit (built once, tests skipped).")
  String against;

  @Option(
      names = "--against-jar",
      paramLabel = "JAR",
      description = "Compare with this blksim.jar instead of building a commit.")
  Path againstJar;

  @Option(names = "--summary", paramLabel = "FILE", description = "Also write the summary to FILE.")
  Path summary;

  @Option(
      names = "--check",
      paramLabel = "'blksim io_uring ...'",
      description =
          "Check one case, given as the command line a summary prints, by every oracle, and say"
              + " what each found.")
  String checkLine;

  @Option(
      names = "--set",
      paramLabel = "path=value",
      description =
          "Add a setting to every case, kept when shrinking: e.g. a fault planted on purpose,"
              + " --set books.break=leak-bio.")
  List<String> sets = new java.util.ArrayList<>();

  @Option(
      names = "--shrink-runs",
      paramLabel = "N",
      description = "Candidates the shrinker may run for one failure (default 200).")
  int shrinkRuns = 200;

  @Option(
      names = "--case-timeout",
      paramLabel = "SECONDS",
      description = "Wall time after which a case counts as hung (default 300).")
  int caseTimeout = 300;

  FuzzCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    check(count >= 1, "--count " + count + ": accepted 1 or more cases");
    check(from >= 0, "--from " + from + ": accepted 0 or more");
    check(
        from <= Long.MAX_VALUE - count,
        "--from " + from + " --count " + count + ": the last case number would pass 2^63-1");
    int j = jobs == null ? Math.min(256, Runtime.getRuntime().availableProcessors()) : jobs;
    check(j >= 1 && j <= 256, "--jobs " + j + ": accepted 1 to 256");
    check(shrinkRuns >= 0, "--shrink-runs " + shrinkRuns + ": accepted 0 or more");
    check(caseTimeout >= 1, "--case-timeout " + caseTimeout + ": accepted 1 second or more");
    check(
        against == null || againstJar == null,
        "--against and --against-jar: give one of them, not both");
    for (String s : sets) {
      check(
          s.indexOf('=') > 0,
          "--set " + s + ": expected path=value, e.g. --set books.break=leak-bio");
      // the same checks a run makes: a key it knows, a value of the right kind
      new blksim.config.Scenario().set(s).settings();
    }
    if (checkLine != null) {
      check(
          against == null && againstJar == null,
          "--check and --against: --check runs the oracles of this build only");
      return checkOne();
    }
    // Opened before the run, so that a path that cannot be written is said at once.
    PrintStream summaryFile = summary == null ? null : openSummary();
    JarBuild other = null;
    try {
      Fuzzer.Check chk;
      String what;
      if (against != null || againstJar != null) {
        Path jar = againstJar != null ? againstJar : OtherBuild.jarOf(against, Path.of(""), err);
        List<String> seq = List.of("--engine", "sequential");
        other = new JarBuild(jar, seq);
        chk = new Differential(new ThisBuild(seq), other);
        what = "each compared byte for byte with " + (against != null ? against : jar);
      } else {
        chk = new Oracles();
        what = "each checked by the books, both engines, a rerun, the accounting and a relation";
      }
      Fuzzer fuzzer =
          new Fuzzer(
              new Generator(seed, sets),
              chk,
              j,
              Duration.ofSeconds(caseTimeout),
              shrinkRuns,
              5,
              err);
      Fuzzer.Result r = fuzzer.run(seed, from, count);
      FuzzReport.print(r, what, out);
      out.flush();
      if (summaryFile != null) {
        FuzzReport.print(r, what, summaryFile);
        summaryFile.flush();
        if (summaryFile.checkError()) {
          // PrintStream keeps the error to itself: asked for here, it is bad output, status 2
          err.println(
              "blksim fuzz: --summary "
                  + summary
                  + ": writing it failed (a full or read-only device?); the file is incomplete");
          return ExitStatus.USAGE.code();
        }
      }
      return r.failures().isEmpty() ? ExitStatus.OK.code() : ExitStatus.FOUND.code();
    } finally {
      if (summaryFile != null) {
        summaryFile.close();
      }
      if (other != null) {
        other.close();
      }
    }
  }

  private PrintStream openSummary() {
    if (JsonTarget.isDevFull(summary)) {
      throw new ConfigError(
          "blksim fuzz: --summary "
              + summary
              + ": cannot write: No space left on device (it is /dev/full, which refuses every"
              + " write)");
    }
    try {
      return new PrintStream(summary.toFile(), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new ConfigError(
          "blksim fuzz: --summary " + summary + ": cannot write: " + e.getMessage());
    }
  }

  /** {@code --check}: one case through every oracle (its relation chosen by {@code --from}). */
  private int checkOne() {
    Case c = CaseLine.parse(checkLine);
    for (String set : sets) {
      int eq = set.indexOf('=');
      c = c.pin("set:" + set.substring(0, eq).trim(), set.substring(eq + 1).trim());
    }
    Verdict v = new Oracles().check(from, c);
    String what;
    if (v instanceof Verdict.Ran r) {
      what =
          "passed every oracle"
              + (r.relation() == null ? "" : ", and the relation " + r.relation());
    } else if (v instanceof Verdict.Refused r) {
      what = "refused in one line: " + r.reason();
    } else {
      Verdict.Failed f = (Verdict.Failed) v;
      what = "FAILED " + f.oracle() + ": " + f.detail();
    }
    out.println(c.commandLine() + ": " + what);
    return v instanceof Verdict.Failed ? ExitStatus.FOUND.code() : ExitStatus.OK.code();
  }

  private static void check(boolean ok, String message) {
    if (!ok) {
      throw new ConfigError("blksim fuzz: " + message);
    }
  }
}

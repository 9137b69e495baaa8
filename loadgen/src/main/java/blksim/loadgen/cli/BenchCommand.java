package blksim.loadgen.cli;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.OneLine;
import blksim.config.Scenario;
import blksim.loadgen.ExitStatus;
import blksim.loadgen.report.CsvReport;
import blksim.loadgen.report.RunReport;
import blksim.loadgen.report.TIoUringFormat;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code blksim bench}: the speed of the simulator, in simulated I/Os per wall second, on the
 * default scenario, for each engine, run side by side in one JVM; with {@code --scale}, at each of
 * several CPU counts, and the ratio of each to the first.
 */
@Command(name = "bench", description = "Measure simulated I/Os per wall second of each engine.")
public final class BenchCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;
  private final PrintStream err;

  @Option(
      names = "--runs",
      paramLabel = "N",
      description = "Runs per engine after one warm-up run (default 5).")
  int runs = 5;

  @Mixin RunOptions run = new RunOptions();

  /** The most CPUs --scale takes. */
  static final int MAX_SCALE = 1024;

  BenchCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Option(
      names = "--scale",
      paramLabel = "N,N",
      split = ",",
      description =
          "Bench at each of these CPU counts, with one submitter and one poll hctx per CPU"
              + " (--scale 1,16,64); the default scenario otherwise.")
  List<Integer> scale = new ArrayList<>();

  private static final List<String> BOTH = List.of("akka", "sequential");

  /** The engines to bench: both, or the one --engine names. */
  private List<String> engines = BOTH;

  /** Each run as a JSON object, for --json. */
  private final List<String> jsonRuns = new ArrayList<>();

  /** Each run, for --csv. */
  private final List<CsvReport.BenchRow> csvRuns = new ArrayList<>();

  @Override
  public Integer call() {
    JsonTarget.check(run.json);
    JsonTarget.check(run.csv, "--csv");
    if (run.outDir != null) {
      throw new ConfigError(
          "blksim bench: --out: bench makes many runs and writes no run directory; --json and"
              + " --csv take every run's figures");
    }
    if (run.engine != null) {
      if (!BOTH.contains(run.engine)) {
        throw new ConfigError(
            "--engine " + OneLine.quoted(run.engine) + ": accepted akka, sequential");
      }
      engines = List.of(run.engine);
    }
    if (runs < 1 || runs > 1000) {
      throw new ConfigError("--runs " + runs + ": accepted 1 to 1000");
    }
    for (int n : scale) {
      if (n < 1 || n > MAX_SCALE) {
        throw new ConfigError("--scale " + n + ": accepted 1 to " + MAX_SCALE + " CPUs");
      }
    }
    List<Integer> points = scale.isEmpty() ? java.util.Collections.singletonList(null) : scale;
    BlksimSettings base = settings(null, points.get(0));
    out.printf(
        Locale.ROOT,
        "blksim bench: %s, %.3f s of virtual time, %d runs per engine after a warm-up%n",
        blksim.loadgen.report.Summary.commandLine(base.ioUring()),
        base.run().runtimeNs() / 1e9,
        runs);
    if (!scale.isEmpty()) {
      out.println("  at each CPU count N: --cpus N -nN --null-blk 'submit_queues=N poll_queues=N'");
    }
    out.println("cpus  engine      run  wall_s  messages  ios_completed  sim_ios_per_wall_sec");
    double[][] medians = new double[points.size()][engines.size()];
    for (int p = 0; p < points.size(); p++) {
      for (int e = 0; e < engines.size(); e++) {
        medians[p][e] = bench(settings(engines.get(e), points.get(p)));
        if (medians[p][e] < 0) {
          writeJson();
          return ExitStatus.BOOKS.code();
        }
      }
    }
    for (int p = 0; p < points.size() && engines.size() == 2; p++) {
      out.printf(
          Locale.ROOT,
          "%4s  akka / sequential (medians): %.2f%n",
          cpus(base, points.get(p)),
          medians[p][0] / medians[p][1]);
    }
    if (points.size() > 1) {
      out.println("cpus  engine      median sim_ios_per_wall_sec  ratio to the first count");
      for (int p = 0; p < points.size(); p++) {
        for (int e = 0; e < engines.size(); e++) {
          out.printf(
              Locale.ROOT,
              "%4d  %-10s  %26s  %.2f%n",
              points.get(p),
              engines.get(e),
              rate(medians[p][e]),
              medians[p][e] / medians[0][e]);
        }
      }
    }
    writeJson();
    return 0;
  }

  /** The runs so far, to --json and --csv when they were given. */
  private void writeJson() {
    if (run.csv != null) {
      try {
        java.nio.file.Files.writeString(run.csv, CsvReport.renderBench(csvRuns));
      } catch (java.io.IOException e) {
        throw new ConfigError("--csv " + run.csv + ": cannot write: " + e.getMessage());
      }
    }
    if (run.json == null) {
      return;
    }
    String text = "{\n  \"bench_runs\": [\n" + String.join(",\n", jsonRuns) + "\n  ]\n}\n";
    try {
      java.nio.file.Files.writeString(run.json, text);
    } catch (java.io.IOException e) {
      throw new ConfigError("--json " + run.json + ": cannot write: " + e.getMessage());
    }
  }

  /**
   * One engine's warm-up and runs; prints each and returns the median rate, or -1 when a run's
   * books did not balance (named on stderr).
   */
  private double bench(BlksimSettings s) {
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    String engine = s.engine().kind().name().toLowerCase(Locale.ROOT);
    if (!balanced(Runner.run(s, quiet), engine, 0)) {
      return -1;
    }
    List<Double> rates = new ArrayList<>();
    for (int i = 1; i <= runs; i++) {
      RunReport r = Runner.run(s, quiet);
      if (!balanced(r, engine, i)) {
        return -1;
      }
      rates.add(r.simIosPerWallSec());
      csvRuns.add(new CsvReport.BenchRow(engine, i, r));
      jsonRuns.add(
          String.format(
              Locale.ROOT,
              "    {\"cpus\": %d, \"engine\": \"%s\", \"run\": %d, \"wall_ns\": %d,"
                  + " \"messages\": %d, \"ios_completed\": %d, \"sim_ios_per_wall_sec\": %.0f,"
                  + " \"books_balanced\": true}",
              s.cpu().count(),
              engine,
              i,
              r.wallNanos(),
              r.result().messages(),
              r.completed(),
              r.simIosPerWallSec()));
      out.printf(
          Locale.ROOT,
          "%4d  %-10s %4d  %6.3f  %8d  %13d  %s%n",
          s.cpu().count(),
          engine,
          i,
          r.wallNanos() / 1e9,
          r.result().messages(),
          r.completed(),
          rate(r.simIosPerWallSec()));
    }
    double[] sorted = rates.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double median = sorted[sorted.length / 2];
    out.printf(
        Locale.ROOT,
        "%4d  %-10s median %s, best %s simulated I/Os per wall second%n",
        s.cpu().count(),
        engine,
        rate(median),
        rate(Arrays.stream(sorted).max().orElse(0)));
    return median;
  }

  /**
   * Whether run {@code i}'s books balanced (0 is the warm-up); names the first violation if not.
   */
  private boolean balanced(RunReport r, String engine, int i) {
    if (r.result().books().balanced()) {
      return true;
    }
    err.println(
        "blksim bench: "
            + engine
            + (i == 0 ? " warm-up" : " run " + i)
            + ": the books do not balance: "
            + r.result().books().violations().get(0));
    return false;
  }

  private static String cpus(BlksimSettings base, Integer n) {
    return n == null ? String.valueOf(base.cpu().count()) : String.valueOf(n);
  }

  /** The default scenario, scaled to {@code cpus} CPUs when not null, with the run's options. */
  private BlksimSettings settings(String engine, Integer cpus) {
    IoUringCommand defaults = new IoUringCommand(out, out);
    new CommandLine(defaults)
        .parseArgs(Arrays.copyOfRange(Cli.DEFAULT_ARGS, 1, Cli.DEFAULT_ARGS.length));
    Scenario scenario = defaults.scenario();
    if (cpus != null) {
      scenario.values(
          Map.of(
              "blksim.cpu.count", cpus,
              "blksim.io-uring.threads", cpus,
              "blksim.null-blk.submit-queues", cpus,
              "blksim.null-blk.poll-queues", cpus),
          "bench --scale");
    }
    scenario = run.apply(scenario);
    scenario.option("blksim.engine.kind", engine, "bench --engine");
    return scenario.settings();
  }

  private static String rate(double r) {
    return TIoUringFormat.iops(Math.round(r)).substring(5);
  }
}

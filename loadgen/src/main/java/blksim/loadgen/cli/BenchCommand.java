package blksim.loadgen.cli;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.Scenario;
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

  @Option(
      names = "--runs",
      paramLabel = "N",
      description = "Runs per engine after one warm-up run (default 5).")
  int runs = 5;

  @Mixin RunOptions run = new RunOptions();

  /** The most CPUs --scale takes. */
  static final int MAX_SCALE = 1024;

  BenchCommand(PrintStream out) {
    this.out = out;
  }

  @Option(
      names = "--scale",
      paramLabel = "N,N",
      split = ",",
      description =
          "Bench at each of these CPU counts, with one submitter and one poll hctx per CPU"
              + " (--scale 1,16,64); the default scenario otherwise.")
  List<Integer> scale = new ArrayList<>();

  private static final String[] ENGINES = {"akka", "sequential"};

  @Override
  public Integer call() {
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
    double[][] medians = new double[points.size()][ENGINES.length];
    for (int p = 0; p < points.size(); p++) {
      for (int e = 0; e < ENGINES.length; e++) {
        medians[p][e] = bench(settings(ENGINES[e], points.get(p)));
      }
    }
    for (int p = 0; p < points.size(); p++) {
      out.printf(
          Locale.ROOT,
          "%4s  akka / sequential (medians): %.2f%n",
          cpus(base, points.get(p)),
          medians[p][0] / medians[p][1]);
    }
    if (points.size() > 1) {
      out.println("cpus  engine      median sim_ios_per_wall_sec  ratio to the first count");
      for (int p = 0; p < points.size(); p++) {
        for (int e = 0; e < ENGINES.length; e++) {
          out.printf(
              Locale.ROOT,
              "%4d  %-10s  %26s  %.2f%n",
              points.get(p),
              ENGINES[e],
              rate(medians[p][e]),
              medians[p][e] / medians[0][e]);
        }
      }
    }
    return 0;
  }

  /** One engine's warm-up and runs; prints each and returns the median rate. */
  private double bench(BlksimSettings s) {
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    String engine = s.engine().kind().name().toLowerCase(Locale.ROOT);
    Runner.run(s, quiet);
    List<Double> rates = new ArrayList<>();
    for (int i = 1; i <= runs; i++) {
      RunReport r = Runner.run(s, quiet);
      rates.add(r.simIosPerWallSec());
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
    scenario.option("blksim.engine.kind", engine, "bench");
    return scenario.settings();
  }

  private static String rate(double r) {
    return TIoUringFormat.iops(Math.round(r)).substring(5);
  }
}

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
 * default scenario, for each engine, run side by side in one JVM.
 */
@Command(name = "bench", description = "Measure simulated I/Os per wall second of each engine.")
public final class BenchCommand implements Callable<Integer> {
  private final PrintStream out;

  @Option(
      names = "--runs",
      paramLabel = "N",
      description = "Runs per engine after one warm-up run (default 5).")
  int runs = 5;

  @Mixin RunOptions run = new RunOptions();

  BenchCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    if (runs < 1 || runs > 1000) {
      throw new ConfigError("--runs " + runs + ": accepted 1 to 1000");
    }
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    BlksimSettings base = settings(null);
    out.printf(
        Locale.ROOT,
        "blksim bench: %s, %.3f s of virtual time, %d runs per engine after a warm-up%n",
        blksim.loadgen.report.Summary.commandLine(base.ioUring()),
        base.run().runtimeNs() / 1e9,
        runs);
    out.println("engine      run  wall_s  messages  ios_completed  sim_ios_per_wall_sec");
    double[] medians = new double[2];
    String[] engines = {"akka", "sequential"};
    for (int e = 0; e < engines.length; e++) {
      BlksimSettings s = settings(engines[e]);
      Runner.run(s, quiet);
      List<Double> rates = new ArrayList<>();
      for (int i = 1; i <= runs; i++) {
        RunReport r = Runner.run(s, quiet);
        rates.add(r.simIosPerWallSec());
        out.printf(
            Locale.ROOT,
            "%-10s %4d  %6.3f  %8d  %13d  %s%n",
            engines[e],
            i,
            r.wallNanos() / 1e9,
            r.result().messages(),
            r.completed(),
            rate(r.simIosPerWallSec()));
      }
      double[] sorted = rates.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      medians[e] = sorted[sorted.length / 2];
      out.printf(
          Locale.ROOT,
          "%-10s median %s, best %s simulated I/Os per wall second%n",
          engines[e],
          rate(medians[e]),
          rate(Arrays.stream(sorted).max().orElse(0)));
    }
    out.printf(Locale.ROOT, "akka / sequential (medians): %.2f%n", medians[0] / medians[1]);
    return 0;
  }

  private BlksimSettings settings(String engine) {
    IoUringCommand defaults = new IoUringCommand(out, out);
    new CommandLine(defaults)
        .parseArgs(Arrays.copyOfRange(Cli.DEFAULT_ARGS, 1, Cli.DEFAULT_ARGS.length));
    Scenario scenario = run.apply(defaults.scenario());
    if (engine != null) {
      scenario.values(Map.of("blksim.engine.kind", engine), "bench");
    }
    return scenario.settings();
  }

  private static String rate(double r) {
    return TIoUringFormat.iops(Math.round(r)).substring(5);
  }
}

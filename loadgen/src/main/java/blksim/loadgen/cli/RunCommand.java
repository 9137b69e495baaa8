package blksim.loadgen.cli;

import blksim.config.Scenario;
import blksim.loadgen.report.RunReport;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code blksim run SCENARIO.conf}: a HOCON scenario (see config/scenarios/). */
@Command(name = "run", description = "Run a HOCON scenario file (see config/scenarios/).")
public final class RunCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;
  private final PrintStream err;
  private final Consumer<RunReport> reports;

  @Parameters(index = "0", paramLabel = "SCENARIO.conf")
  Path file;

  @Mixin RunOptions run = new RunOptions();

  RunCommand(PrintStream out, PrintStream err) {
    this(out, err, r -> {});
  }

  /**
   * @param reports receives the report of the run, once it has been printed
   */
  RunCommand(PrintStream out, PrintStream err, Consumer<RunReport> reports) {
    this.out = out;
    this.err = err;
    this.reports = reports;
  }

  @Override
  public Integer call() {
    return Runner.runAndReport("run", scenario().settings(), run, out, err, reports).code();
  }

  /** The scenario file with the run options layered on top. */
  Scenario scenario() {
    return run.apply(new Scenario().file(file));
  }
}

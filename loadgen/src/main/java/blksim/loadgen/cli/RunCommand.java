package blksim.loadgen.cli;

import blksim.config.Scenario;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code blksim run SCENARIO.conf}: a HOCON scenario (see config/scenarios/). */
@Command(name = "run", description = "Run a HOCON scenario file (see config/scenarios/).")
public final class RunCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;
  private final PrintStream err;

  @Parameters(index = "0", paramLabel = "SCENARIO.conf")
  Path file;

  @Mixin RunOptions run = new RunOptions();

  RunCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    return Runner.runAndReport(scenario().settings(), run.json, out, err).code();
  }

  /** The scenario file with the run options layered on top. */
  Scenario scenario() {
    return run.apply(new Scenario().file(file));
  }
}

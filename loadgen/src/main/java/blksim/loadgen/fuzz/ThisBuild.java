package blksim.loadgen.fuzz;

import blksim.loadgen.cli.Cli;
import blksim.loadgen.report.RunReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * This build, run in this JVM through the same entry point as the {@code blksim} command, with some
 * arguments added to every command line (an engine, or a cost changed on purpose).
 */
public final class ThisBuild implements Build {
  private final List<String> extra;

  /**
   * @param extra arguments appended to every command line
   */
  public ThisBuild(List<String> extra) {
    this.extra = List.copyOf(extra);
  }

  @Override
  public Outcome run(List<String> args) {
    List<String> all = new ArrayList<>(args);
    all.addAll(extra);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    RunReport[] report = new RunReport[1];
    int exit;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      try {
        exit = Cli.execute(all.toArray(String[]::new), o, e, r -> report[0] = r).code();
      } catch (RuntimeException | StackOverflowError | OutOfMemoryError ex) {
        e.println("blksim: escaped the command line's handlers: " + ex);
        exit = -1;
      }
    }
    return Outcome.of(
        exit,
        out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8),
        report[0]);
  }

  @Override
  public String name() {
    return extra.isEmpty() ? "this build" : "this build with " + String.join(" ", extra);
  }
}

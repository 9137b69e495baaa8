package blksim.loadgen;

import blksim.loadgen.cli.Cli;
import java.io.PrintStream;
import org.slf4j.LoggerFactory;

/** The {@code blksim} command. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    // Initialise SLF4J before Akka's threads do, or it prints a "replay" warning
    // (docs/build-notes.md 3).
    LoggerFactory.getILoggerFactory();
    System.exit(run(args, System.out, System.err));
  }

  /** Runs {@code blksim args}, writing to {@code out} and {@code err}; returns the exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return Cli.execute(args, out, err).code();
  }
}

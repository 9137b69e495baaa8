package blksim.loadgen.cli;

import blksim.actors.engine.RunAborted;
import blksim.config.ConfigError;
import blksim.config.OneLine;
import blksim.loadgen.ExitStatus;
import blksim.loadgen.report.RunReport;
import blksim.queues.books.InvariantBroken;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code blksim} command line: {@code io_uring}, {@code run}, {@code bench}, and, with no
 * argument at all, the default scenario. Bad input of any kind is one line on stderr and exit
 * status 2; a broken invariant is one line and 3.
 */
public final class Cli {
  private Cli() {}

  /**
   * The default scenario, the seed's command (Pavel Begunkov, 2021-10-13): {@code t/io_uring -d32
   * -s32 -c32 -b512 -p1 /dev/nullb0}, for one second of virtual time.
   */
  public static final String[] DEFAULT_ARGS = {
    "io_uring", "-d32", "-s32", "-c32", "-b512", "-p1", "-r1", "/dev/nullb0"
  };

  @Command(
      name = "blksim",
      mixinStandardHelpOptions = true,
      version = "blksim 0.1.0",
      description = {
        "A virtual-time model of the Linux block I/O fast path.",
        "With no arguments: blksim io_uring -d32 -s32 -c32 -b512 -p1 -r1 /dev/nullb0"
      })
  static final class Top implements Callable<Integer> {
    @Override
    public Integer call() {
      throw new ConfigError(
          "blksim: give a command (io_uring, run, compare, sweep, worker, bench, fuzz, report, profile, limits) or no arguments"
              + " at all");
    }
  }

  /** Runs {@code args}; returns the exit status. */
  public static ExitStatus execute(String[] args, PrintStream out, PrintStream err) {
    return execute(args, out, err, r -> {});
  }

  /**
   * Runs {@code args}; returns the exit status.
   *
   * @param reports receives the report of each run that {@code io_uring} or {@code run} made
   */
  public static ExitStatus execute(
      String[] args, PrintStream out, PrintStream err, Consumer<RunReport> reports) {
    String[] effective = args.length == 0 ? DEFAULT_ARGS : args;
    CommandLine cmd = new CommandLine(new Top());
    cmd.addSubcommand("io_uring", new IoUringCommand(out, err, reports));
    cmd.addSubcommand("run", new RunCommand(out, err, reports));
    cmd.addSubcommand("compare", new CompareCommand(out, err));
    cmd.addSubcommand("sweep", new SweepCommand(out, err));
    cmd.addSubcommand("worker", new WorkerCommand(out, err));
    cmd.addSubcommand("bench", new BenchCommand(out, err));
    cmd.addSubcommand("fuzz", new FuzzCommand(out, err));
    cmd.addSubcommand("report", new ReportCommand(out));
    cmd.addSubcommand("limits", new LimitsCommand(out));
    CommandLine profile = new CommandLine(new ProfileCommand());
    profile.addSubcommand("import", new ProfileImportCommand(out, err));
    profile.addSubcommand("diff", new ProfileDiffCommand(out));
    cmd.addSubcommand("profile", profile);
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    // Handlers as methods, not block lambdas: google-java-format 1.28 and 2.0 (JDK 17 and 25) lay
    // out a block lambda passed as the sole argument differently.
    cmd.setParameterExceptionHandler((ex, a) -> badParameter(ex, err));
    cmd.setExecutionExceptionHandler((ex, c, parsed) -> failed(ex, c, err));
    int code;
    try {
      code = cmd.execute(effective);
    } catch (StackOverflowError | OutOfMemoryError e) {
      // picocli hands Exceptions to the handler above; an Error of the JVM passes through it
      out.flush();
      err.println(
          "blksim: "
              + (e instanceof StackOverflowError ? "stack overflow" : "out of memory")
              + " (a bug of blksim, or input nested or sized beyond what it can hold)");
      return ExitStatus.BOOKS;
    }
    out.flush();
    if (out.checkError()) {
      // PrintStream swallows a failed write (a full disk, a closed stdout or pipe): the output is
      // lost, so the run cannot count as done
      err.println(
          "blksim: writing standard output failed (a full device, or stdout closed?); the output"
              + " is lost or incomplete");
      return ExitStatus.USAGE;
    }
    for (ExitStatus s : ExitStatus.values()) {
      if (s.code() == code) {
        return s;
      }
    }
    return ExitStatus.INTERNAL;
  }

  /** What a command accepts, for the end of the line that rejects one of its arguments. */
  private static String accepted(CommandLine c) {
    if ("io_uring".equals(c.getCommandName())) {
      return " (t/io_uring flags: -d -s -c -b -p -B -F -n -O -N -t -T -r -R -a -S -X -P -V -e -u -H"
          + " -h)";
    }
    java.util.List<String> names = new java.util.ArrayList<>();
    for (picocli.CommandLine.Model.OptionSpec o : c.getCommandSpec().options()) {
      if (!o.usageHelp() && !o.versionHelp()) {
        names.add(o.longestName());
      }
    }
    return names.isEmpty() ? "" : " (options: " + String.join(" ", names) + ")";
  }

  /**
   * The scenario that run arguments describe ({@code io_uring ...} or {@code run FILE ...}), for
   * commands that run others, such as {@code compare}.
   *
   * @throws picocli.CommandLine.ParameterException for a bad flag in them
   */
  static blksim.config.Scenario scenarioOf(
      java.util.List<String> args, PrintStream out, PrintStream err) {
    String[] rest = args.subList(1, args.size()).toArray(String[]::new);
    switch (args.get(0)) {
      case "io_uring":
        {
          IoUringCommand c = new IoUringCommand(out, err);
          new CommandLine(c).parseArgs(rest);
          return c.scenario();
        }
      case "run":
        {
          RunCommand c = new RunCommand(out, err);
          new CommandLine(c).parseArgs(rest);
          return c.scenario();
        }
      default:
        throw new ConfigError(
            "the run arguments must start with io_uring or run, e.g. -- io_uring -d32 /dev/nullb0;"
                + " got "
                + args.get(0));
    }
  }

  private static int badParameter(CommandLine.ParameterException ex, PrintStream err) {
    if (ex.getCause() instanceof Atoi.NotANumber n
        && ex.getArgSpec() instanceof CommandLine.Model.OptionSpec o) {
      String flag = o.longestName();
      err.println(
          ex.getCommandLine().getCommandSpec().qualifiedName()
              + ": "
              + flag
              + " "
              + OneLine.of(ex.getValue())
              + ": "
              + n.getMessage()
              + (n.hint == null ? "" : "; did you mean " + flag + n.hint + "?"));
      return ExitStatus.USAGE.code();
    }
    err.println(
        ex.getCommandLine().getCommandSpec().qualifiedName()
            + ": "
            + OneLine.of(firstLine(ex.getMessage()))
            + (ex.getMessage().contains("option '--") ? "" : accepted(ex.getCommandLine())));
    return ExitStatus.USAGE.code();
  }

  private static int failed(Exception ex, CommandLine c, PrintStream err) {
    if (ex instanceof CommandLine.ParameterException pe) {
      err.println(
          c.getCommandSpec().qualifiedName() + ": " + OneLine.of(firstLine(pe.getMessage())));
      return ExitStatus.USAGE.code();
    }
    if (ex instanceof ConfigError) {
      err.println(OneLine.of(ex.getMessage()));
      return ExitStatus.USAGE.code();
    }
    if (ex instanceof InvariantBroken) {
      err.println("blksim: invariant broken: " + OneLine.of(ex.getMessage()));
      return ExitStatus.BOOKS.code();
    }
    if (ex instanceof Runner.Failed) {
      err.println("blksim: the run failed: " + OneLine.of(ex.getMessage()));
      return ExitStatus.BOOKS.code();
    }
    err.println(
        "blksim: internal error: "
            + OneLine.of(RunAborted.describe(ex))
            + " (BLKSIM_TRACE=1 prints where)");
    if (System.getenv("BLKSIM_TRACE") != null) {
      ex.printStackTrace(err);
    }
    return ExitStatus.INTERNAL.code();
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
  }
}

package blksim.loadgen.cli;

import blksim.actors.engine.AkkaEngine;
import blksim.actors.engine.Engine;
import blksim.actors.engine.Interruption;
import blksim.actors.engine.SequentialEngine;
import blksim.actors.topology.RunFailed;
import blksim.actors.topology.RunResult;
import blksim.actors.topology.Topology;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.EngineSettings;
import blksim.loadgen.ExitStatus;
import blksim.loadgen.report.CsvReport;
import blksim.loadgen.report.JsonReport;
import blksim.loadgen.report.Progress;
import blksim.loadgen.report.RunDirectory;
import blksim.loadgen.report.RunReport;
import blksim.loadgen.report.StatusPrinter;
import blksim.loadgen.report.Summary;
import blksim.loadgen.report.TIoUringFormat;
import blksim.queues.time.VirtualTime;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Runs one scenario and prints what t/io_uring would, then blksim's summary. */
final class Runner {
  private Runner() {}

  /**
   * Runs {@code settings}, printing everything; returns the exit status.
   *
   * @param command the command's name, for the CSV's rows
   * @param reports receives the report once it is printed (the fuzzer's oracles read it)
   */
  static ExitStatus runAndReport(
      String command,
      BlksimSettings settings,
      RunOptions options,
      PrintStream out,
      PrintStream err,
      Consumer<RunReport> reports) {
    Path json = options.json;
    // the environment is input too: refused before anything runs or is printed
    Progress.wanted(System.getenv("BLKSIM_PROGRESS"));
    Path csv = options.csv;
    JsonTarget.check(json);
    JsonTarget.check(csv, "--csv");
    RunDirectory dir =
        options.outDir == null ? null : RunDirectory.open(options.outDir, settings).as(command, "");
    RunReport r;
    try {
      r = run(settings, out, true, dir);
    } catch (Failed f) {
      return failed(f, command, json, csv, dir, out, err);
    }
    if (settings.ioUring().trackLatencies()) {
      for (RunResult.Submitter sub : r.result().submitters()) {
        out.println((TIoUringFormat.FIRST_TID + sub.index()) + ": Latency percentiles:");
        // each thread its own, as t/io_uring's per-submitter plat histogram
        TIoUringFormat.percentiles(RunReport.percentilesNs(sub.latencyNs()), "")
            .forEach(out::println);
      }
    }
    Summary.print(r, out);
    if (json != null) {
      write(r, json);
    }
    if (csv != null) {
      writeCsv(command, r, csv);
    }
    if (dir != null) {
      writeDirectory(r, dir);
    }
    out.println(Summary.wallLine(r));
    out.flush();
    reports.accept(r);
    if (!r.result().books().balanced()) {
      err.println("blksim: the books do not balance: " + r.result().books().violations().get(0));
      return ExitStatus.BOOKS;
    }
    return ExitStatus.OK;
  }

  /**
   * A run that ended early on a failure: one line on stderr, what ran into the JSON when asked for,
   * exit 3. (A profile that would stop virtual time is refused before the run, with exit 2; a run
   * whose time stops all the same has found a bug of the model.)
   */
  private static ExitStatus failed(
      Failed f,
      String command,
      Path json,
      Path csv,
      RunDirectory dir,
      PrintStream out,
      PrintStream err) {
    out.flush();
    List<String> where = new ArrayList<>();
    if (json != null) {
      try {
        JsonReport.write(f.partial(), json);
        where.add(json.toString());
      } catch (IOException e) {
        where.add("not " + json + " (" + e.getMessage() + ")");
      }
    }
    if (csv != null) {
      try {
        CsvReport.write(List.of(new CsvReport.Row(command, "", f.partial())), csv);
        where.add(csv.toString());
      } catch (IOException e) {
        where.add("not " + csv + " (" + e.getMessage() + ")");
      }
    }
    if (dir != null) {
      try {
        dir.write(f.partial());
        where.add(dir.path().toString());
      } catch (IOException e) {
        where.add("not " + dir.path() + " (" + e.getMessage() + ")");
      }
    }
    err.println(
        "blksim: the run failed: "
            + f.getMessage()
            + (where.isEmpty() ? "" : "; what ran is in " + String.join(" and ", where)));
    if (System.getenv("BLKSIM_TRACE") != null) {
      f.printStackTrace(err);
    }
    return ExitStatus.BOOKS;
  }

  private static void writeDirectory(RunReport r, RunDirectory dir) {
    try {
      dir.write(r);
    } catch (IOException e) {
      throw new ConfigError("--out " + dir.path() + ": cannot write: " + e.getMessage());
    }
  }

  private static void write(RunReport r, Path json) {
    try {
      JsonReport.write(r, json);
    } catch (IOException e) {
      throw new ConfigError("--json " + json + ": cannot write: " + e.getMessage());
    }
  }

  private static void writeCsv(String command, RunReport r, Path csv) {
    try {
      CsvReport.write(List.of(new CsvReport.Row(command, "", r)), csv);
    } catch (IOException e) {
      throw new ConfigError("--csv " + csv + ": cannot write: " + e.getMessage());
    }
  }

  /** A run that ended early on a failure, with its partial report. */
  static final class Failed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient RunReport partial;

    Failed(RunFailed failure, RunReport partial) {
      super(failure.getMessage(), failure);
      this.partial = partial;
    }

    RunReport partial() {
      return partial;
    }
  }

  /** Runs {@code settings}: startup and status lines go to {@code out}. */
  static RunReport run(BlksimSettings settings, PrintStream out) {
    return run(settings, out, false, null);
  }

  /**
   * Runs {@code settings}: startup and status lines go to {@code out}; with {@code signals}, SIGINT
   * and SIGTERM end the run early, as they end t/io_uring's; with {@code dir}, the interval log is
   * written as the run goes.
   *
   * @throws Failed if the run ended early on a failure
   */
  static RunReport run(
      BlksimSettings settings, PrintStream stdout, boolean signals, RunDirectory dir) {
    // what the run prints clears the progress bar's line on stderr first
    Progress.Guarded guarded = new Progress.Guarded(stdout);
    PrintStream out =
        signals ? new PrintStream(guarded, true, java.nio.charset.StandardCharsets.UTF_8) : stdout;
    StatusPrinter printer =
        new StatusPrinter(out, settings.ioUring().blockSize(), settings.ioUring().nop());
    if (dir != null) {
      printer.logTo(dir.intervalLog());
    }
    Topology topology = Topology.build(settings, printer);
    TIoUringFormat.startup(settings.ioUring()).forEach(out::println);
    Engine engine =
        settings.engine().kind() == EngineSettings.Kind.AKKA
            ? new AkkaEngine(settings.engine().akkaConfig())
            : new SequentialEngine(settings.engine().divergeOnPurpose());
    Interruption interruption = topology.registry().interruption();
    long start = System.nanoTime();
    RunResult result;
    Signals routed = signals ? Signals.routeTo(interruption) : null;
    Progress progress =
        signals
            ? Progress.start(
                System.err,
                interruption,
                VirtualTime.ps(settings.run().runtimeNs()),
                printer::doneSoFar)
            : null;
    if (progress != null) {
      guarded.watch(progress);
    }
    try {
      result = topology.run(engine);
    } catch (RunFailed e) {
      long wall = System.nanoTime() - start;
      throw new Failed(
          e,
          new RunReport(
              settings,
              e.partial(),
              printer.lines(),
              wall,
              new RunReport.Ending("failed: " + e.getMessage())));
    } finally {
      if (progress != null) {
        out.flush();
        progress.close();
      }
      if (routed != null) {
        routed.close();
      }
    }
    long wall = System.nanoTime() - start;
    return new RunReport(
        settings,
        result,
        printer.lines(),
        wall,
        interruption.cut()
            ? new RunReport.Ending(RunReport.Ending.SIGNAL_CUT)
            : interruption.delivered()
                ? new RunReport.Ending(RunReport.Ending.SIGNAL)
                : RunReport.Ending.COMPLETE);
  }
}

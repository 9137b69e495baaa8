package blksim.loadgen.cli;

import blksim.actors.engine.AkkaEngine;
import blksim.actors.engine.Engine;
import blksim.actors.engine.SequentialEngine;
import blksim.actors.topology.RunResult;
import blksim.actors.topology.Topology;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.EngineSettings;
import blksim.loadgen.ExitStatus;
import blksim.loadgen.report.JsonReport;
import blksim.loadgen.report.RunReport;
import blksim.loadgen.report.StatusPrinter;
import blksim.loadgen.report.Summary;
import blksim.loadgen.report.TIoUringFormat;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.function.Consumer;

/** Runs one scenario and prints what t/io_uring would, then blksim's summary. */
final class Runner {
  private Runner() {}

  /**
   * Runs {@code settings}, printing everything; returns the exit status.
   *
   * @param reports receives the report once it is printed (the fuzzer's oracles read it)
   */
  static ExitStatus runAndReport(
      BlksimSettings settings,
      Path json,
      PrintStream out,
      PrintStream err,
      Consumer<RunReport> reports) {
    JsonTarget.check(json);
    RunReport r = run(settings, out);
    if (settings.ioUring().trackLatencies()) {
      for (RunResult.Submitter sub : r.result().submitters()) {
        out.println((TIoUringFormat.FIRST_TID + sub.index()) + ": Latency percentiles:");
        TIoUringFormat.percentiles(r.percentilesNs(), "").forEach(out::println);
      }
    }
    Summary.print(r, out);
    if (json != null) {
      try {
        JsonReport.write(r, json);
      } catch (IOException e) {
        throw new ConfigError("--json " + json + ": cannot write: " + e.getMessage());
      }
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

  /** Runs {@code settings}: startup and status lines go to {@code out}. */
  static RunReport run(BlksimSettings settings, PrintStream out) {
    StatusPrinter printer = new StatusPrinter(out, settings.ioUring().blockSize());
    Topology topology = Topology.build(settings, printer);
    TIoUringFormat.startup(settings.ioUring()).forEach(out::println);
    Engine engine =
        settings.engine().kind() == EngineSettings.Kind.AKKA
            ? new AkkaEngine(settings.engine().akkaConfig())
            : new SequentialEngine(settings.engine().divergeOnPurpose());
    long start = System.nanoTime();
    RunResult result = topology.run(engine);
    long wall = System.nanoTime() - start;
    return new RunReport(settings, result, printer.lines(), wall);
  }
}

package blksim.loadgen.cli;

import blksim.config.ConfigError;
import blksim.config.IoUringSettings;
import blksim.config.Scenario;
import blksim.loadgen.report.RunReport;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code blksim io_uring}: fio's {@code t/io_uring} command line, every flag of current master with
 * its default, run on the model. {@code -r N} is N seconds of virtual time.
 */
@Command(name = "io_uring", description = "Run fio's t/io_uring command line on the model.")
public final class IoUringCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;
  private final Consumer<RunReport> reports;

  @Option(names = "-d", paramLabel = "<int>", converter = Atoi.Int.class)
  Integer depth;

  @Option(names = "-s", paramLabel = "<int>", converter = Atoi.Int.class)
  Integer batchSubmit;

  @Option(names = "-c", paramLabel = "<int>", converter = Atoi.Int.class)
  Integer batchComplete;

  @Option(names = "-b", paramLabel = "<int>", converter = Atoi.Int.class)
  Integer blockSize;

  @Option(names = "-p", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer polled;

  @Option(names = "-B", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer fixedBufs;

  @Option(names = "-F", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer registerFiles;

  @Option(names = "-n", paramLabel = "<int>", converter = Atoi.Int.class)
  Integer threads;

  @Option(names = "-O", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer oDirect;

  @Option(names = "-N", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer nop;

  @Option(names = "-t", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer stats;

  @Option(names = "-T", paramLabel = "<int>", converter = Atoi.Long.class)
  Long tscRate;

  @Option(names = "-r", paramLabel = "<int>", converter = Atoi.Int.class)
  Integer runtime;

  @Option(names = "-R", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer randomIo;

  @Option(names = "-a", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer aio;

  @Option(names = "-S", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer syncIo;

  @Option(names = "-X", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer registerRing;

  @Option(names = "-P", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer numa;

  @Option(names = "-V", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer vectored;

  @Option(names = "-e", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer restriction;

  @Option(names = "-u", paramLabel = "<bool>", converter = Atoi.Int.class)
  Integer passthrough;

  @Option(names = "-H", paramLabel = "<path>")
  String hugetlb;

  @Option(names = "-D", paramLabel = "<bool>", hidden = true)
  String dmaMap;

  @Option(names = {"-h", "-?", "--help"})
  boolean help;

  @Parameters(paramLabel = "<file>")
  List<String> files = new ArrayList<>();

  @Mixin RunOptions run = new RunOptions();

  IoUringCommand(PrintStream out, PrintStream err) {
    this(out, err, r -> {});
  }

  /**
   * @param reports receives the report of the run, once it has been printed
   */
  IoUringCommand(PrintStream out, PrintStream err, Consumer<RunReport> reports) {
    this.out = out;
    this.err = err;
    this.reports = reports;
  }

  @Override
  public Integer call() {
    if (help) {
      TIoUringUsage.print(out);
      return 0;
    }
    return Runner.runAndReport("io_uring", scenario().settings(), run, out, err, reports).code();
  }

  /** The scenario these flags describe, with the run options layered on top. */
  Scenario scenario() {
    if (dmaMap != null) {
      throw new ConfigError(
          "-D " + dmaMap + ": dma_map was removed from t/io_uring in 2024; not accepted");
    }
    // t/io_uring of 2021 opens no file for -N1 (fio 2ac00585): none is needed
    if (files.isEmpty() && (nop == null || nop == 0)) {
      throw new ConfigError("No files specified: give the device to read, e.g. /dev/nullb0");
    }
    Map<String, Object> v = new LinkedHashMap<>();
    String p = "blksim.io-uring.";
    put(v, p + "depth", depth, "-d", "IO depth", 1, IoUringSettings.IORING_MAX_ENTRIES);
    put(
        v,
        p + "batch-submit",
        batchSubmit,
        "-s",
        "batch submit",
        0,
        IoUringSettings.IORING_MAX_ENTRIES);
    put(
        v,
        p + "batch-complete",
        batchComplete,
        "-c",
        "batch complete",
        0,
        IoUringSettings.IORING_MAX_ENTRIES);
    put(v, p + "block-size", blockSize, "-b", "block size in bytes", 1, 1 << 24);
    put(v, p + "threads", threads, "-n", "threads (Threads must be non-zero)", 1, 4096);
    bool(v, p + "polled", polled);
    bool(v, p + "fixed-buffers", fixedBufs);
    bool(v, p + "register-files", registerFiles);
    bool(v, p + "o-direct", oDirect);
    bool(v, p + "nop", nop);
    bool(v, p + "track-latencies", stats);
    bool(v, p + "random-io", randomIo);
    bool(v, p + "aio", aio);
    bool(v, p + "sync-io", syncIo);
    bool(v, p + "register-ring", registerRing);
    bool(v, p + "numa-placement", numa);
    bool(v, p + "vectored", vectored);
    bool(v, p + "restriction", restriction);
    bool(v, p + "passthrough", passthrough);
    if (tscRate != null) {
      if (tscRate < 0) {
        throw new ConfigError("-T " + tscRate + ": a TSC rate in Hz must be >= 0");
      }
      v.put(p + "tsc-rate", tscRate);
    }
    if (hugetlb != null) {
      v.put(p + "hugetlb-path", hugetlb);
    }
    if (runtime != null) {
      if (runtime <= 0) {
        throw new ConfigError(
            "-r "
                + runtime
                + ": t/io_uring's 'until interrupted' has no end in virtual time; "
                + "give a runtime of 1 second or more");
      }
    }
    if (!files.isEmpty()) {
      v.put(p + "files", files);
    }
    Scenario scenario = new Scenario().values(v, "t/io_uring flags");
    // -r is its own layer, so that a runtime out of range names the flag
    scenario.option("blksim.run.runtime", runtime == null ? null : runtime + "s", "-r " + runtime);
    return run.apply(scenario);
  }

  private static void put(
      Map<String, Object> v, String key, Integer value, String flag, String what, int lo, int hi) {
    if (value == null) {
      return;
    }
    if (value < lo || value > hi) {
      throw new ConfigError(flag + " " + value + ": " + what + " must be " + lo + " to " + hi);
    }
    v.put(key, value);
  }

  /** t/io_uring reads its booleans with {@code !!atoi()}: any non-zero integer is true. */
  private static void bool(Map<String, Object> v, String key, Integer value) {
    if (value != null) {
      v.put(key, value != 0);
    }
  }
}

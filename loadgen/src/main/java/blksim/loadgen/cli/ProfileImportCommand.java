package blksim.loadgen.cli;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import blksim.config.Scenario;
import blksim.loadgen.perf.ImportedProfile;
import blksim.loadgen.perf.PerfReport;
import blksim.loadgen.report.RunReport;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code blksim profile import --perf FILE --iops N --name NAME [--base P] [--cpu C] [--out F]}: a
 * pasted perf report into a profile file (docs/your-box.md). The file goes to --out or stdout; the
 * listing of what went where to stdout when the file has --out, else to stderr.
 */
@Command(
    name = "import",
    description = "Turn a pasted perf report --stdio and its run's IOPS into a profile file.")
final class ProfileImportCommand implements Callable<Integer> {
  /** The seed command the fit runs, as {@code blksim io_uring} takes it. */
  static final String SEED = "t/io_uring -d32 -s32 -c32 -b512 -p1 /dev/nullb0";

  /** Virtual time of each of the fit's runs: long enough to be stable to 0.01 %. */
  static final String FIT_RUNTIME = "50ms";

  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;
  private final PrintStream err;

  @Option(
      names = "--perf",
      required = true,
      paramLabel = "FILE",
      description = "perf report --stdio, as pasted.")
  Path perf;

  @Option(
      names = "--iops",
      required = true,
      paramLabel = "N",
      description = "IOPS of the run the report was taken on (4250000, 4.25M).")
  String iops;

  @Option(
      names = "--name",
      required = true,
      paramLabel = "NAME",
      description = "The profile's name.")
  String name;

  @Option(
      names = "--base",
      paramLabel = "PROFILE",
      description = "The profile it extends; its steps fill those the report does not show.")
  String base = "begunkov-2021";

  @Option(
      names = "--cpu",
      paramLabel = "PRESET",
      description = "Facts of a micro-architecture preset: x86-4ghz, zen2, skylake-sp.")
  String cpu;

  @Option(
      names = "--section",
      paramLabel = "LABEL",
      description =
          "Of a paste labelled 'Before:', 'After:', the one to read (default: the first).")
  String section;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "Write the profile file here, not to stdout.")
  Path outFile;

  ProfileImportCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    ImportedProfile.Request q =
        new ImportedProfile.Request(
            perf.getFileName() == null ? perf.toString() : perf.getFileName().toString(),
            ImportedProfile.iops(iops),
            name,
            base,
            cpu);
    ImportedProfile.check(q);
    PerfReport report = PerfReport.read(perf, section);
    ImportedProfile p = ImportedProfile.of(q, report, h -> seedNsPerIo(h, name, FIT_RUNTIME));
    PrintStream listing = outFile == null ? err : out;
    if (outFile != null) {
      try {
        Files.writeString(outFile, p.hocon(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new ConfigError(
            "--out "
                + OneLine.of(outFile.toString())
                + ": cannot write: "
                + OneLine.of(e.getMessage()));
      }
    } else {
      out.print(p.hocon());
    }
    p.listing().forEach(listing::println);
    out.flush();
    err.flush();
    return 0;
  }

  /** The seed command's ns per I/O on profile {@code name}, defined by {@code hocon}. */
  static double seedNsPerIo(String hocon, String name, String runtime) {
    return 1e9 / seedRun(hocon, name, runtime).iops();
  }

  /** The seed command on profile {@code name}, with the profile's setup, on the plain engine. */
  static RunReport seedRun(String hocon, String name, String runtime) {
    Scenario s =
        new Scenario()
            .hocon(hocon, "the imported profile")
            .values(
                Map.of(
                    "blksim.io-uring.depth", 32,
                    "blksim.io-uring.batch-submit", 32,
                    "blksim.io-uring.batch-complete", 32,
                    "blksim.io-uring.block-size", 512,
                    "blksim.io-uring.polled", true,
                    "blksim.io-uring.files", List.of("/dev/nullb0")),
                SEED)
            .option("blksim.cpu.profile", name, "--name")
            .option("blksim.engine.kind", "sequential", "the fit")
            .option("blksim.run.runtime", runtime, "the fit");
    return Runner.run(s.settings(), new PrintStream(OutputStream.nullOutputStream()));
  }
}

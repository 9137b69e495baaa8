package blksim.loadgen.cli;

import blksim.loadgen.perf.ImportedProfile;
import blksim.loadgen.perf.PerfDiff;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code blksim profile diff --perf-diff FILE [--iops N]}: which of blksim's steps a pasted perf
 * diff's deltas fall on, to check a patch's description against it (docs/your-box.md 6).
 */
@Command(name = "diff", description = "Map a pasted perf diff's deltas onto blksim's steps.")
final class ProfileDiffCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;

  @Option(
      names = "--perf-diff",
      required = true,
      paramLabel = "FILE",
      description = "perf diff output, as pasted.")
  Path file;

  @Option(
      names = "--iops",
      paramLabel = "N",
      description = "IOPS of the baseline run: shares as ns/IO too.")
  String iops;

  ProfileDiffCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    double n = iops == null ? 0 : ImportedProfile.iops(iops);
    PerfDiff d = PerfDiff.read(file);
    String source = file.getFileName() == null ? file.toString() : file.getFileName().toString();
    d.listing(source, n).forEach(out::println);
    out.flush();
    return 0;
  }
}

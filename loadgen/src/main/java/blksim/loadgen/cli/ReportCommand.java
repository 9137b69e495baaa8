package blksim.loadgen.cli;

import blksim.config.ConfigError;
import blksim.loadgen.report.CompareHtml;
import blksim.loadgen.report.HtmlReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code blksim report DIR}: draws a run directory's report.html again, from its files alone, or
 * each profile's of a compare on several profiles.
 */
@Command(
    name = "report",
    description =
        "Write DIR/report.html again from a run or compare directory (--out DIR) alone; for a"
            + " compare on several profiles, each DIR/PROFILE/report.html.")
public final class ReportCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;

  @Parameters(index = "0", paramLabel = "DIR")
  Path dir;

  ReportCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    if (!Files.isDirectory(dir)) {
      throw new ConfigError("blksim report: " + dir + ": no such directory");
    }
    try {
      if (CompareHtml.isCompare(dir)) {
        HtmlReport.write(dir.resolve("A"));
        HtmlReport.write(dir.resolve("B"));
        out.println("blksim report: " + CompareHtml.write(dir));
        return 0;
      }
      List<Path> profiles = CompareHtml.profileDirs(dir);
      for (Path p : profiles) {
        HtmlReport.write(p.resolve("A"));
        HtmlReport.write(p.resolve("B"));
        out.println("blksim report: " + CompareHtml.write(p));
      }
      if (!profiles.isEmpty()) {
        return 0;
      }
      out.println("blksim report: " + HtmlReport.write(dir));
    } catch (IOException e) {
      throw new ConfigError("blksim report: " + dir + ": cannot write: " + e.getMessage());
    }
    return 0;
  }
}

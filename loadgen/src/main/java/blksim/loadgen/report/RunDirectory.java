package blksim.loadgen.report;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.VirtualDuration;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigRenderOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A run's directory ({@code --out DIR}): everything a run leaves, in files other tools read.
 *
 * <ul>
 *   <li>{@code config.conf}: the resolved configuration, every {@code blksim} key, as HOCON that
 *       {@code blksim run} takes back;
 *   <li>{@code summary.json}: the figures, as {@code --json} writes them;
 *   <li>{@code summary.csv}: the figures, as {@code --csv} writes them ({@link CsvReport});
 *   <li>{@code latency.hgrm}: HdrHistogram's percentile distribution of submit-to-reap latency, in
 *       microseconds, which HdrHistogram's plotter reads;
 *   <li>{@code latency.hlog}: the interval log ({@link IntervalLog}), written during the run;
 *   <li>{@code profile.txt}: CPU time per I/O by kernel function, as the summary prints it;
 *   <li>{@code report.html}: all of it drawn ({@link HtmlReport}); {@code blksim report DIR} draws
 *       it again from the other files.
 * </ul>
 *
 * A run that ended early on a failure leaves the same files, of what ran.
 */
public final class RunDirectory {
  private final Path dir;
  private final IntervalLog log;
  private String command = "";
  private String variant = "";

  private RunDirectory(Path dir, IntervalLog log) {
    this.dir = dir;
    this.log = log;
  }

  /**
   * What {@code summary.csv} says of the run: the command that ran it and its variant (compare's A
   * or B); both empty unless set.
   */
  public RunDirectory as(String command, String variant) {
    this.command = command;
    this.variant = variant;
    return this;
  }

  /** The most status intervals a run directory holds: 10,000, 100 us intervals of a 1 s run. */
  static final long MAX_INTERVALS = 10_000;

  /**
   * Refuses what {@link #open} would refuse of {@code settings}, before anything is created: a
   * blank name, or more status intervals than a run directory holds.
   */
  public static void check(Path dir, BlksimSettings settings) {
    if (dir.toString().isBlank()) {
      throw new ConfigError("--out '': give the directory to write, e.g. --out run1");
    }
    long runtime = settings.run().runtimeNs();
    long interval = settings.run().statusIntervalNs();
    long intervals = (runtime + interval - 1) / interval;
    if (intervals > MAX_INTERVALS) {
      // each interval writes a histogram of all submitters and one of each to latency.hlog, which
      // report.html then reads whole: bounded, so that a run that fits in memory writes its report
      throw new ConfigError(
          "--out "
              + dir
              + ": run.status-interval = "
              + VirtualDuration.text(interval)
              + " gives "
              + intervals
              + " status intervals in run.runtime = "
              + VirtualDuration.text(runtime)
              + ", each a set of histograms in latency.hlog; accepted at most "
              + MAX_INTERVALS
              + " with --out (a status-interval of "
              + VirtualDuration.text((runtime + MAX_INTERVALS - 1) / MAX_INTERVALS)
              + " or more)");
    }
  }

  /**
   * Creates {@code dir} if needed and opens its interval log, before the run starts.
   *
   * @throws ConfigError naming the directory and why it cannot be written
   */
  public static RunDirectory open(Path dir, BlksimSettings settings) {
    check(dir, settings);
    try {
      Files.createDirectories(dir);
      if (!Files.isWritable(dir)) {
        throw new IOException("not writable");
      }
      List<Integer> cpus = new ArrayList<>();
      for (int t = 0; t < settings.ioUring().threads(); t++) {
        cpus.add(settings.cpu().cpuOf(t));
      }
      return new RunDirectory(dir, new IntervalLog(dir.resolve("latency.hlog"), cpus));
    } catch (IOException | RuntimeException e) {
      throw new ConfigError("--out " + dir + ": cannot write there: " + why(e));
    }
  }

  /** Where the interval log goes: the status printer writes it as the intervals end. */
  public IntervalLog intervalLog() {
    return log;
  }

  /** Writes the files of {@code r}, and closes the interval log. */
  public void write(RunReport r) throws IOException {
    log.finish(r.result());
    Files.writeString(dir.resolve("config.conf"), config(r.settings()));
    JsonReport.write(r, dir.resolve("summary.json"));
    CsvReport.write(List.of(new CsvReport.Row(command, variant, r)), dir.resolve("summary.csv"));
    try (PrintStream hgrm = new PrintStream(dir.resolve("latency.hgrm").toFile(), "UTF-8")) {
      r.result().latencyNs().outputPercentileDistribution(hgrm, 1000.0);
    }
    List<String> profile = ProfileReport.format(ProfileReport.lines(r), "");
    Files.write(dir.resolve("profile.txt"), profile, StandardCharsets.UTF_8);
    HtmlReport.write(dir);
  }

  public Path path() {
    return dir;
  }

  /** The resolved {@code blksim} keys as HOCON, without the origins. */
  static String config(BlksimSettings settings) {
    Config blksim = settings.engine().akkaConfig().getConfig("blksim").atKey("blksim");
    return "# The resolved configuration of this run: blksim run config.conf runs it again.\n"
        + blksim
            .root()
            .render(
                ConfigRenderOptions.defaults()
                    .setOriginComments(false)
                    .setComments(false)
                    .setJson(false)
                    .setFormatted(true));
  }

  private static String why(Exception e) {
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such directory above it";
    }
    if (e instanceof java.nio.file.FileAlreadyExistsException) {
      return "a file of that name is in the way";
    }
    if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    String m = e.getMessage();
    return m == null ? "it could not be created" : m;
  }
}

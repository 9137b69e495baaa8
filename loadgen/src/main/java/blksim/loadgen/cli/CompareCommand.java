package blksim.loadgen.cli;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.OneLine;
import blksim.config.Scenario;
import blksim.loadgen.report.CompareHtml;
import blksim.loadgen.report.CompareReport;
import blksim.loadgen.report.CsvReport;
import blksim.loadgen.report.RunDirectory;
import blksim.loadgen.report.RunReport;
import blksim.loadgen.sweep.RunPool;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code blksim compare --patch LIST [--profile P] -- <run arguments>}: A without the patches, B
 * with them (and any two configurations with {@code --a-set}/{@code --b-set}), side by side. With
 * {@code --profile a,b,c}, A and B on each profile and one row a profile.
 */
@Command(
    name = "compare",
    description =
        "Run A and B (B is A with --patch, or A and B differ by --a-set/--b-set)"
            + " and print them side by side.")
public final class CompareCommand implements Callable<Integer> {
  static {
    HelpLists.install();
  }

  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;
  private final PrintStream err;

  @Option(
      names = "--patch",
      paramLabel = "a,b",
      split = ",",
      description =
          "Patches that B adds to A: ${sys:blksim.help.patches}, or your own (--patch-file).")
  List<String> patches = new ArrayList<>();

  @Option(
      names = "--patch-file",
      paramLabel = "FILE",
      description =
          "A HOCON file of patches described as data, for --patch NAME (repeatable;"
              + " docs/your-patch.md).")
  List<Path> patchFiles = new ArrayList<>();

  @Option(
      names = "--profile",
      paramLabel = "NAME[,NAME...]",
      description =
          "The CPU cost profile of both runs (${sys:blksim.help.profiles}). Several (a,b,c): A and B on each profile, one"
              + " after another, and one table of them, a row a profile (A against B, with all"
              + " of --patch; no row of each patch alone).")
  String profile;

  @Option(
      names = "--profile-file",
      paramLabel = "FILE",
      description = "A profile file (blksim profile import) for both runs; repeatable.")
  List<Path> profileFiles = new ArrayList<>();

  @Option(
      names = "--kernel",
      paramLabel = "NAME",
      description = "The named kernel of both runs: ${sys:blksim.help.kernels}.")
  String kernel;

  @Option(names = "--set", paramLabel = "path=value", description = "A setting of A and B.")
  List<String> sets = new ArrayList<>();

  @Option(names = "--a-set", paramLabel = "path=value", description = "A setting of A only.")
  List<String> aSets = new ArrayList<>();

  @Option(names = "--b-set", paramLabel = "path=value", description = "A setting of B only.")
  List<String> bSets = new ArrayList<>();

  @Option(
      names = "--engine",
      paramLabel = "akka|sequential",
      description = "How both runs are driven.")
  String engine;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write baseline, patched and delta_pct as JSON.")
  Path json;

  @Option(
      names = "--csv",
      paramLabel = "FILE",
      description =
          "Also write the figures as CSV: a header line, then a row a variant (A, each patch"
              + " alone, B), of each profile.")
  Path csv;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "Also write DIR/A and DIR/B, each side's run directory, DIR/compare.json,"
              + " DIR/compare.csv and DIR/report.html with A and B overlaid.")
  Path outDir;

  @Parameters(
      paramLabel = "<run arguments>",
      description =
          "After --: io_uring ... or run SCENARIO.conf, with any run option but --json, --csv, --out and --patch (refused there); they apply to A and B alike")
  List<String> runArgs = new ArrayList<>();

  CompareCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    if (patches.isEmpty() && aSets.isEmpty() && bSets.isEmpty()) {
      throw new ConfigError(
          "blksim compare: give --patch LIST, or --a-set/--b-set, to say how B differs from A");
    }
    List<String> args = runArgs.isEmpty() ? Arrays.asList(Cli.DEFAULT_ARGS) : runArgs;
    for (String a : args) {
      for (String option : new String[] {"--json", "--csv", "--patch", "--out"}) {
        if (a.equals(option) || a.startsWith(option + "=")) {
          // After --, an option would be the run's, on both sides: not what compare means.
          throw new ConfigError(
              "blksim compare: "
                  + option
                  + " after -- would apply to A and B alike; give it before --, as compare's ("
                  + compares(option)
                  + ")");
        }
      }
    }
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    JsonTarget.check(json);
    JsonTarget.check(csv, "--csv");
    List<String> profiles = profiles(args);
    if (profiles.size() > 1) {
      return onEachProfile(args, profiles, quiet);
    }
    // Every side's settings are read before anything runs: a bad --b-set is found at once.
    BlksimSettings aSettings = variant(profile, args, aSets, List.of(), List.of()).settings();
    List<BlksimSettings> aloneSettings = new ArrayList<>();
    if (patches.size() > 1) {
      for (String p : patches) {
        aloneSettings.add(variant(profile, args, aSets, List.of(p), List.of()).settings());
      }
    }
    BlksimSettings bSettings = variant(profile, args, List.of(), patches, bSets).settings();
    RunDirectory aDir = open(outDir == null ? null : outDir.resolve("A"), aSettings, A_LABEL);
    RunDirectory bDir = open(outDir == null ? null : outDir.resolve("B"), bSettings, bLabel());
    // A, each patch alone and B side by side: each gives the bytes it gives alone
    List<Side> sides = new ArrayList<>();
    sides.add(new Side(aSettings, aDir));
    aloneSettings.forEach(s -> sides.add(new Side(s, null)));
    sides.add(new Side(bSettings, bDir));
    List<RunReport> reports = runAll(sides, quiet);
    CompareReport.Variant a = new CompareReport.Variant(A_LABEL, reports.get(0));
    List<CompareReport.Variant> alone = new ArrayList<>();
    for (int i = 0; i < aloneSettings.size(); i++) {
      alone.add(new CompareReport.Variant("A + " + patches.get(i), reports.get(1 + i)));
    }
    CompareReport.Variant b = new CompareReport.Variant(bLabel(), reports.get(reports.size() - 1));
    CompareReport.print(a, alone, b, out);
    List<CsvReport.Row> csvRows = new ArrayList<>();
    csvRows.add(row(a));
    alone.forEach(v -> csvRows.add(row(v)));
    csvRows.add(row(b));
    if (outDir != null) {
      try {
        aDir.write(a.report());
        bDir.write(b.report());
        Files.writeString(
            outDir.resolve("compare.json"),
            CompareReport.json(a, alone, b),
            StandardCharsets.UTF_8);
        CsvReport.write(csvRows, outDir.resolve("compare.csv"));
        CompareHtml.write(outDir);
      } catch (IOException e) {
        throw new ConfigError("--out " + outDir + ": cannot write: " + e.getMessage());
      }
    }
    if (json != null) {
      try {
        Files.writeString(json, CompareReport.json(a, alone, b), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new ConfigError("--json " + json + ": cannot write: " + e.getMessage());
      }
    }
    writeCsv(csvRows);
    out.flush();
    return booksOf(a.report(), b.report());
  }

  private static final String A_LABEL = "A (baseline)";

  /** One run of a comparison: its settings, and its run directory (null without --out). */
  private record Side(BlksimSettings settings, RunDirectory dir) {}

  /**
   * Every side, as many at once as there are cores ({@link RunPool}), in the order given; the first
   * that failed, in that order, is thrown.
   */
  private static List<RunReport> runAll(List<Side> sides, PrintStream quiet) {
    return RunPool.ofCores().runAll(sides, s -> Runner.run(s.settings(), quiet, false, s.dir()));
  }

  /** What compare's {@code option} is, for the line that refuses it after --. */
  private static String compares(String option) {
    return switch (option) {
      case "--patch" -> "B's patches";
      case "--json" -> "the comparison's JSON";
      case "--csv" -> "the comparison's CSV";
      default -> "A's and B's directories";
    };
  }

  /** The run directory of one variant, or null without --out. */
  private static RunDirectory open(Path dir, BlksimSettings settings, String label) {
    return dir == null ? null : RunDirectory.open(dir, settings).as("compare", label);
  }

  /** The CSV row of {@code v}. */
  private static CsvReport.Row row(CompareReport.Variant v) {
    return new CsvReport.Row("compare", v.label(), v.report());
  }

  /** The rows to --csv, when it was given. */
  private void writeCsv(List<CsvReport.Row> rows) {
    if (csv == null) {
      return;
    }
    try {
      CsvReport.write(rows, csv);
    } catch (IOException e) {
      throw new ConfigError("--csv " + csv + ": cannot write: " + e.getMessage());
    }
  }

  private String bLabel() {
    return patches.isEmpty() ? "B" : "B (A + " + String.join(", ", patches) + ")";
  }

  /**
   * The profiles that {@code --profile} lists: one (null without the option) unless it holds a
   * comma; a list with an empty name, a name twice or a name that is not a profile is refused.
   */
  private List<String> profiles(List<String> args) {
    if (profile == null || !profile.contains(",")) {
      return Collections.singletonList(profile);
    }
    List<String> names = new ArrayList<>();
    for (String p : profile.split(",", -1)) {
      String name = p.trim();
      if (name.isEmpty()) {
        throw new ConfigError(
            "blksim compare: --profile "
                + OneLine.clipped(profile)
                + ": an empty name in the list; give profile names separated by commas, e.g."
                + " --profile begunkov-2021,xeon-gold-6154");
      }
      if (names.contains(name)) {
        throw new ConfigError(
            "blksim compare: --profile "
                + OneLine.clipped(profile)
                + " lists "
                + OneLine.of(name)
                + " twice; give each profile once");
      }
      names.add(name);
    }
    // the profiles a scenario file or --set defines count as well as reference.conf's
    Set<String> known =
        new TreeSet<>(
            variant(null, args, aSets, List.of(), List.of())
                .resolved()
                .getObject("blksim.profiles")
                .keySet());
    for (String name : names) {
      if (!known.contains(name)) {
        throw new ConfigError(
            "blksim compare: --profile "
                + OneLine.clipped(profile)
                + ": "
                + OneLine.of(name)
                + " is not a profile: known "
                + String.join(", ", known));
      }
      if (outDir != null && (name.contains("/") || name.contains("\\") || name.startsWith("."))) {
        throw new ConfigError(
            "blksim compare: --out with --profile "
                + OneLine.of(name)
                + ": the name cannot be a directory of --out (it holds / or \\, or starts with"
                + " .)");
      }
    }
    return names;
  }

  /**
   * One patch on many CPUs: A and B on each profile, one after another, each with its profile's
   * setup as a compare of that profile alone has it, and one table of them.
   */
  private int onEachProfile(List<String> args, List<String> profiles, PrintStream quiet) {
    // Every profile's settings are read before anything runs, as for one profile.
    List<BlksimSettings> aSettings = new ArrayList<>();
    List<BlksimSettings> bSettings = new ArrayList<>();
    for (String p : profiles) {
      aSettings.add(variant(p, args, aSets, List.of(), List.of()).settings());
      bSettings.add(variant(p, args, List.of(), patches, bSets).settings());
    }
    List<CompareReport.ProfileRow> rows = new ArrayList<>();
    List<RunReport> reports = new ArrayList<>();
    List<CsvReport.Row> csvRows = new ArrayList<>();
    List<RunDirectory[]> dirs = new ArrayList<>();
    List<Side> sides = new ArrayList<>();
    for (int i = 0; i < profiles.size(); i++) {
      Path dir = outDir == null ? null : outDir.resolve(profiles.get(i));
      RunDirectory aDir = open(dir == null ? null : dir.resolve("A"), aSettings.get(i), A_LABEL);
      RunDirectory bDir = open(dir == null ? null : dir.resolve("B"), bSettings.get(i), bLabel());
      dirs.add(new RunDirectory[] {aDir, bDir});
      sides.add(new Side(aSettings.get(i), aDir));
      sides.add(new Side(bSettings.get(i), bDir));
    }
    // every profile's A and B side by side
    List<RunReport> ran = runAll(sides, quiet);
    for (int i = 0; i < profiles.size(); i++) {
      Path dir = outDir == null ? null : outDir.resolve(profiles.get(i));
      RunDirectory aDir = dirs.get(i)[0];
      RunDirectory bDir = dirs.get(i)[1];
      CompareReport.Variant a = new CompareReport.Variant(A_LABEL, ran.get(2 * i));
      CompareReport.Variant b = new CompareReport.Variant(bLabel(), ran.get(2 * i + 1));
      rows.add(new CompareReport.ProfileRow(profiles.get(i), a, b));
      reports.add(a.report());
      reports.add(b.report());
      csvRows.add(row(a));
      csvRows.add(row(b));
      if (dir != null) {
        try {
          aDir.write(a.report());
          bDir.write(b.report());
          Files.writeString(
              dir.resolve("compare.json"),
              CompareReport.json(a, List.of(), b),
              StandardCharsets.UTF_8);
          CsvReport.write(List.of(row(a), row(b)), dir.resolve("compare.csv"));
          CompareHtml.write(dir);
        } catch (IOException e) {
          throw new ConfigError("--out " + outDir + ": cannot write: " + e.getMessage());
        }
      }
    }
    CompareReport.printProfiles(rows, out);
    if (outDir != null) {
      try {
        Files.writeString(
            outDir.resolve("compare.json"),
            CompareReport.profilesJson(rows),
            StandardCharsets.UTF_8);
        CsvReport.write(csvRows, outDir.resolve("compare.csv"));
      } catch (IOException e) {
        throw new ConfigError("--out " + outDir + ": cannot write: " + e.getMessage());
      }
    }
    if (json != null) {
      try {
        Files.writeString(json, CompareReport.profilesJson(rows), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new ConfigError("--json " + json + ": cannot write: " + e.getMessage());
      }
    }
    writeCsv(csvRows);
    out.flush();
    return booksOf(reports.toArray(RunReport[]::new));
  }

  private int booksOf(RunReport... reports) {
    for (RunReport r : reports) {
      if (!r.result().books().balanced()) {
        err.println("blksim: the books do not balance: " + r.result().books().violations().get(0));
        return 3;
      }
    }
    return 0;
  }

  /** The run of {@code args}, with this command's shared options and one side's differences. */
  private Scenario variant(
      String cpuProfile,
      List<String> args,
      List<String> sideSets,
      List<String> addPatches,
      List<String> moreSets) {
    Scenario s = Cli.scenarioOf(args, out, err);
    profileFiles.forEach(s::profileFile);
    patchFiles.forEach(s::patchFile);
    s.option("blksim.cpu.profile", cpuProfile, "--profile");
    s.option("blksim.kernel.preset", kernel, "--kernel");
    s.option("blksim.engine.kind", engine, "--engine");
    sets.forEach(s::set);
    sideSets.forEach(a -> s.set(a, "--a-set"));
    moreSets.forEach(b -> s.set(b, "--b-set"));
    if (!addPatches.isEmpty()) {
      s.addPatches(addPatches);
    }
    return s;
  }
}

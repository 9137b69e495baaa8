package blksim.loadgen.cli;

import blksim.config.Scenario;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** Options every run takes, whatever describes its load. */
public final class RunOptions {
  static {
    HelpLists.install();
  }

  @Option(
      names = "--set",
      paramLabel = "path=value",
      description =
          "Override any HOCON key (blksim. may be left out), e.g. --set io-uring.depth=64.")
  List<String> sets = new ArrayList<>();

  @Option(
      names = "--null-blk",
      paramLabel = "'name=value ...'",
      description =
          "null_blk module parameters in modprobe syntax, e.g. 'submit_queues=1 poll_queues=1'.")
  List<String> nullBlk = new ArrayList<>();

  @Option(
      names = "--dm-table",
      paramLabel = "'TABLE'",
      description =
          "A device-mapper table in dmsetup syntax, lines separated by ';': the next /dev/dm-N,"
              + " e.g. '0 524288000 linear /dev/nullb0 0'. Repeat for dm-1, dm-2.")
  List<String> dmTables = new ArrayList<>();

  @Option(names = "--seed", paramLabel = "N", description = "Root seed of every random stream.")
  Long seed;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the figures as JSON to FILE.")
  Path json;

  @Option(
      names = "--csv",
      paramLabel = "FILE",
      description =
          "Also write the figures as CSV to FILE: a header line, then a row a run"
              + " (docs/usage.md lists the columns).")
  Path csv;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "Also write the run's directory: config.conf, summary.json, summary.csv, latency.hgrm,"
              + " latency.hlog, profile.txt.")
  Path outDir;

  @Option(
      names = "--patch",
      paramLabel = "a,b",
      split = ",",
      description =
          "Turn on patches: the built-in ones (${sys:blksim.help.patches}), or your own"
              + " (--patch-file; docs/your-patch.md); no-NAME takes one of --kernel's away.")
  List<String> patches = new ArrayList<>();

  @Option(
      names = "--patch-file",
      paramLabel = "FILE",
      description =
          "A HOCON file of patches described as data (patches.NAME { changes, adds }), for"
              + " --patch NAME (repeatable; docs/your-patch.md).")
  List<Path> patchFiles = new ArrayList<>();

  @Option(
      names = "--kernel",
      paramLabel = "NAME",
      description = "A named kernel: ${sys:blksim.help.kernels} (docs/kernel.md section 8).")
  String kernel;

  @Option(
      names = "--profile",
      paramLabel = "NAME",
      description =
          "The CPU cost profile (blksim.profiles.NAME): ${sys:blksim.help.profiles}, or one of"
              + " --profile-file.")
  String profile;

  @Option(
      names = "--profile-file",
      paramLabel = "FILE",
      description =
          "A profile file, as blksim profile import writes it, under every other setting;"
              + " repeatable. Its profiles are then known to --profile.")
  List<Path> profileFiles = new ArrayList<>();

  @Option(
      names = "--cpus",
      paramLabel = "N",
      description =
          "CPUs of the machine (blksim.cpu.count); by default the threads' CPUs, one for each"
              + " thread's io-wq worker.")
  Integer cpus;

  @Option(
      names = "--taskset",
      paramLabel = "LIST",
      description = "CPUs the submitter threads run on, as taskset -c takes them: 0-3,8.")
  String taskset;

  @Option(
      names = "--engine",
      paramLabel = "akka|sequential",
      description =
          "Actors ordered by a clock actor (akka, default) or a plain event loop: same output.")
  String engine;

  /**
   * Adds the option layers, in order: --profile-file (under everything), --patch-file, --profile,
   * --kernel, --null-blk, --dm-table, --set, --seed, --engine, --patch.
   */
  Scenario apply(Scenario scenario) {
    profileFiles.forEach(scenario::profileFile);
    patchFiles.forEach(scenario::patchFile);
    scenario.option("blksim.cpu.profile", profile, "--profile");
    scenario.option("blksim.kernel.preset", kernel, "--kernel");
    scenario.option("blksim.cpu.count", cpus, "--cpus");
    if (taskset != null) {
      scenario.values(Map.of("blksim.cpu.submitter-cpus", CpuList.parse(taskset)), "--taskset");
    }
    nullBlk.forEach(scenario::nullBlk);
    if (!dmTables.isEmpty()) {
      scenario.values(Map.of("blksim.dm.tables", List.copyOf(dmTables)), "--dm-table");
    }
    sets.forEach(scenario::set);
    scenario.option("blksim.run.seed", seed, "--seed");
    scenario.option("blksim.engine.kind", engine, "--engine");
    if (!patches.isEmpty()) {
      scenario.addPatches(patches);
    }
    return scenario;
  }
}

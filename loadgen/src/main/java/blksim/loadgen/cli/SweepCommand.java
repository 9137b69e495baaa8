package blksim.loadgen.cli;

import akka.actor.typed.ActorSystem;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.OneLine;
import blksim.config.Scenario;
import blksim.loadgen.cluster.ClusterNode;
import blksim.loadgen.cluster.Coordinator;
import blksim.loadgen.cluster.NodeAddress;
import blksim.loadgen.cluster.Transport;
import blksim.loadgen.report.Progress;
import blksim.loadgen.report.RunDirectory;
import blksim.loadgen.report.SweepHtml;
import blksim.loadgen.sweep.Axis;
import blksim.loadgen.sweep.Point;
import blksim.loadgen.sweep.PointKey;
import blksim.loadgen.sweep.PointResult;
import blksim.loadgen.sweep.PointStore;
import blksim.loadgen.sweep.RunPool;
import blksim.loadgen.sweep.SweepFile;
import blksim.loadgen.sweep.SweepTable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code blksim sweep SWEEP.conf [--out DIR]}: every point of a sweep file, as many at once as
 * there are cores, each in a run directory named by its key ({@link PointKey}); a point already
 * computed is not computed again. Then a table on stdout, {@code DIR/results.csv}, {@code
 * DIR/results.json} and {@code DIR/report.html}.
 */
@Command(
    name = "sweep",
    description =
        "Run every point of a sweep file (a base command and axes) and tabulate them; points"
            + " already computed are reused (docs/usage.md, Sweeps).")
public final class SweepCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;
  private final PrintStream err;

  @Parameters(index = "0", paramLabel = "SWEEP.conf", description = "The sweep file.")
  Path file;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "Where the results and the points go (default: the sweep file's name without .conf,"
              + " plus .out, in the current directory).")
  Path outDir;

  @Option(
      names = "--jobs",
      paramLabel = "J",
      description = "Points run at once (default: the number of cores).")
  Integer jobs;

  @Option(names = "--force", description = "Compute every point again, even those computed.")
  boolean force;

  @Option(
      names = "--cluster",
      paramLabel = "HOST:PORT",
      description =
          "Coordinate the sweep on an Akka Cluster bound to HOST:PORT: workers that join it"
              + " (blksim worker --join HOST:PORT) compute the points (docs/cluster.md).")
  String cluster;

  @Option(
      names = "--key-store",
      paramLabel = "FILE",
      description =
          "With --cluster: a PKCS12 key store (password in BLKSIM_KEY_STORE_PASSWORD), TLS with"
              + " mutual authentication; every node holds the same one.")
  Path keyStore;

  @Option(
      names = "--insecure-plain-tcp",
      description = "With --cluster: plain TCP on an address other than loopback (a warning).")
  boolean insecurePlain;

  @Option(
      names = "--list",
      description =
          "Print each point's key and command line, and whether it is computed, and run nothing.")
  boolean list;

  SweepCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    long start = System.nanoTime();
    int j = jobs == null ? Math.min(256, Runtime.getRuntime().availableProcessors()) : jobs;
    if (j < 1 || j > 256) {
      throw new ConfigError("blksim sweep: --jobs " + j + ": accepted 1 to 256");
    }
    Boolean progressWanted = Progress.wanted(System.getenv("BLKSIM_PROGRESS"));
    SweepFile sweep = SweepFile.read(file);
    Path dir = outDir != null ? outDir : Path.of(defaultName(file));
    if (cluster == null && (keyStore != null || insecurePlain)) {
      throw new ConfigError(
          "blksim sweep: "
              + (keyStore != null ? "--key-store" : "--insecure-plain-tcp")
              + " is for --cluster HOST:PORT");
    }
    NodeAddress clusterAddress =
        cluster == null ? null : NodeAddress.parse(cluster, "--cluster", false);
    Transport transport =
        clusterAddress == null
            ? null
            : Transport.of(
                keyStore,
                insecurePlain,
                System.getenv(Transport.PASSWORD_ENV),
                clusterAddress.loopback("--cluster"),
                "--cluster " + clusterAddress,
                err);
    List<Point> points = sweep.points(optionsOf(sweep.command()));
    // every point resolved, and so checked, before anything runs
    List<PointKey> keys = new ArrayList<>();
    for (Point p : points) {
      keys.add(resolve(p, dir, sweep));
    }
    if (list) {
      for (int i = 0; i < points.size(); i++) {
        boolean computed =
            Files.isRegularFile(
                dir.resolve("points").resolve(keys.get(i).hex()).resolve("summary.json"));
        out.println(
            i
                + "  "
                + keys.get(i).hex()
                + "  "
                + (computed ? "computed" : "to compute")
                + "  "
                + points.get(i).commandLine());
      }
      out.flush();
      return 0;
    }
    PointStore store = PointStore.open(dir);
    Map<String, PointKey> todo = new LinkedHashMap<>();
    for (PointKey k : keys) {
      if (force || !store.has(k)) {
        todo.putIfAbsent(k.hex(), k);
      }
    }
    Map<String, String> failures = new LinkedHashMap<>();
    int distinct = (int) keys.stream().map(PointKey::hex).distinct().count();
    SweepProgress progress =
        new SweepProgress(
            progressWanted == null ? Progress.stderrIsTerminal() : progressWanted,
            todo.size(),
            distinct - todo.size());
    List<PointKey> work = new ArrayList<>(todo.values());
    if (clusterAddress != null) {
      failures.putAll(onCluster(work, store, clusterAddress, transport, progress));
    } else {
      List<RunPool.Done<PointResult>> done =
          new RunPool(j).runAll(work, k -> PointRunner.compute(k, store, force), progress::done);
      for (RunPool.Done<PointResult> d : done) {
        if (d.failure() instanceof PointRunner.Failed f) {
          failures.put(work.get(d.index()).hex(), f.getMessage());
        } else {
          d.get();
        }
      }
    }
    progress.close();
    List<SweepTable.Row> rows = new ArrayList<>();
    for (int i = 0; i < points.size(); i++) {
      PointKey k = keys.get(i);
      String failed = failures.get(k.hex());
      rows.add(
          new SweepTable.Row(points.get(i), k, failed == null ? read(store, k) : null, failed));
    }
    SweepTable table = new SweepTable(sweep.axes(), rows);
    table.print(out);
    write(dir, table, sweep, rows);
    out.printf(
        Locale.ROOT,
        "sweep: %d points (%d distinct), %d computed, %d found computed in %s, wall %.2f s%n",
        points.size(),
        distinct,
        todo.size(),
        distinct - todo.size(),
        dir.resolve("points"),
        (System.nanoTime() - start) / 1e9);
    out.flush();
    for (SweepTable.Row r : rows) {
      if (r.result() == null || !r.result().balanced()) {
        err.println(
            "blksim: sweep point "
                + r.point().index()
                + " "
                + (r.result() == null
                    ? "failed: " + OneLine.of(r.failure())
                    : "does not balance its books (see " + store.dir(r.key()) + ")"));
        return 3;
      }
    }
    return 0;
  }

  /**
   * The points of {@code work} computed by the workers of a cluster that this process coordinates;
   * returns the failures (key to why).
   */
  private Map<String, String> onCluster(
      List<PointKey> work,
      PointStore store,
      NodeAddress address,
      Transport transport,
      SweepProgress progress) {
    CompletableFuture<Map<String, String>> finished = new CompletableFuture<>();
    int[] stored = {0};
    ActorSystem<Coordinator.Command> system =
        ClusterNode.start(
            Coordinator.create(
                work,
                store,
                force,
                err,
                key -> {
                  stored[0]++;
                  err.println(
                      "blksim sweep: point " + key + " in (" + stored[0] + "/" + work.size() + ")");
                  err.flush();
                  progress.done(null);
                },
                finished),
            ClusterNode.config(address, address, transport, true));
    err.println(
        "blksim sweep: "
            + work.size()
            + " points to compute; coordinating at "
            + address
            + " (blksim worker --join "
            + address
            + (transport.tls() ? " --key-store FILE" : "")
            + ")");
    err.flush();
    Map<String, String> failures = finished.join();
    // leave the cluster, so that the workers see the coordinator go and stop
    // (bounded: a leave that never converges, say with a dead worker not yet downed, must not
    // keep a finished sweep from printing its table)
    try {
      akka.actor.CoordinatedShutdown.get(system)
          .runAll(akka.actor.CoordinatedShutdown.clusterLeavingReason())
          .toCompletableFuture()
          .get(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      err.println("blksim sweep: leaving the cluster took over 30 s; stopping without it");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    system.terminate();
    try {
      system
          .getWhenTerminated()
          .toCompletableFuture()
          .get(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      err.println("blksim sweep: the cluster node did not stop within 30 s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return failures;
  }

  /** The key of {@code p}, once its command line and settings are read; bad input is one line. */
  private PointKey resolve(Point p, Path dir, SweepFile sweep) {
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    try {
      Scenario s = Cli.scenarioOf(p.args(), quiet, quiet);
      BlksimSettings settings = s.settings();
      RunDirectory.check(dir, settings);
      return PointKey.of(settings.engine().akkaConfig());
    } catch (ConfigError | CommandLine.ParameterException e) {
      throw new ConfigError(
          OneLine.of(file.toString())
              + ": point "
              + p.index()
              + " ("
              + describe(p, sweep)
              + "): "
              + OneLine.of(firstLine(e.getMessage())));
    }
  }

  /** The point's values, axis=value, for the line that refuses it. */
  private static String describe(Point p, SweepFile sweep) {
    List<String> v = new ArrayList<>();
    for (int i = 0; i < sweep.axes().size(); i++) {
      v.add(sweep.axes().get(i).name() + "=" + OneLine.quoted(OneLine.clipped(p.values().get(i))));
    }
    return String.join(", ", v);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
  }

  private static PointResult read(PointStore store, PointKey k) {
    try {
      return store.result(k);
    } catch (IOException e) {
      throw new ConfigError("blksim sweep: cannot read " + store.dir(k) + ": " + e.getMessage());
    }
  }

  private void write(Path dir, SweepTable table, SweepFile sweep, List<SweepTable.Row> rows) {
    try {
      table.writeCsv(dir.resolve("results.csv"));
      table.writeJson(dir.resolve("results.json"), file.getFileName().toString());
      List<SweepHtml.Row> html = new ArrayList<>();
      for (SweepTable.Row r : rows) {
        PointResult p = r.result();
        html.add(
            new SweepHtml.Row(
                r.point().values(),
                p == null ? 0 : p.iops(),
                p == null ? 0 : p.p99Ns() / 1000.0,
                p == null ? 0 : p.cpuNsPerIo(),
                "points/" + r.key().hex(),
                r.books()));
      }
      List<String> axes = new ArrayList<>();
      sweep.axes().forEach(a -> axes.add(a.name()));
      SweepHtml.write(
          dir, "blksim sweep " + file.getFileName() + "\nbase: " + sweep.base(), axes, html);
    } catch (IOException e) {
      throw new ConfigError("--out " + dir + ": cannot write: " + e.getMessage());
    }
  }

  /** {@code cpus.conf} gives {@code cpus.out}. */
  static String defaultName(Path file) {
    String name = file.getFileName() == null ? "sweep" : file.getFileName().toString();
    return (name.endsWith(".conf") ? name.substring(0, name.length() - 5) : name) + ".out";
  }

  /** What the base command ({@code io_uring} or {@code run}) accepts, from its own picocli spec. */
  private Axis.Options optionsOf(String command) {
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    Object c =
        command.equals("io_uring")
            ? new IoUringCommand(quiet, quiet)
            : new RunCommand(quiet, quiet);
    CommandLine.Model.CommandSpec spec = new CommandLine(c).getCommandSpec();
    return new Axis.Options() {
      @Override
      public String command() {
        return command;
      }

      @Override
      public boolean has(String option) {
        CommandLine.Model.OptionSpec o = spec.findOption(option);
        return o != null && List.of(o.names()).contains(option) && !o.usageHelp();
      }

      @Override
      public boolean repeatable(String option) {
        return spec.findOption(option).isMultiValue();
      }

      @Override
      public String listed() {
        List<String> names = new ArrayList<>();
        for (CommandLine.Model.OptionSpec o : spec.options()) {
          if (!o.usageHelp() && !o.hidden()) {
            names.add(o.longestName());
          }
        }
        return String.join(" ", names);
      }
    };
  }

  /** Points done of all and the time left, on a terminal's stderr; nothing elsewhere. */
  private final class SweepProgress {
    private final boolean on;
    private final int total;
    private final int reused;
    private final long start = System.nanoTime();
    private int done;

    SweepProgress(boolean on, int total, int reused) {
      this.on = on;
      this.total = total;
      this.reused = reused;
      show();
    }

    void done(RunPool.Done<PointResult> d) {
      done++;
      show();
    }

    private void show() {
      if (!on || total == 0) {
        return;
      }
      long wall = System.nanoTime() - start;
      String left =
          done == 0
              ? ""
              : String.format(
                  Locale.ROOT, ", about %.0f s left", wall / 1e9 * (total - done) / done);
      err.print(
          "\rsweep: "
              + done
              + "/"
              + total
              + " points computed"
              + (reused > 0 ? " (" + reused + " found computed)" : "")
              + left
              + "   ");
      err.flush();
    }

    void close() {
      if (on && total > 0) {
        err.print("\r" + " ".repeat(72) + "\r");
        err.flush();
      }
    }
  }
}

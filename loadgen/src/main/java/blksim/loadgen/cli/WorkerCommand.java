package blksim.loadgen.cli;

import akka.actor.typed.ActorSystem;
import blksim.config.ConfigError;
import blksim.loadgen.cluster.ClusterNode;
import blksim.loadgen.cluster.NodeAddress;
import blksim.loadgen.cluster.Transport;
import blksim.loadgen.cluster.WorkerNode;
import blksim.loadgen.sweep.PointKey;
import blksim.loadgen.sweep.PointStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code blksim worker --join HOST:PORT [--slots N]}: joins the cluster of a sweep's coordinator
 * ({@code blksim sweep FILE --cluster HOST:PORT}) and computes the points it is handed, until the
 * coordinator has finished (docs/cluster.md).
 */
@Command(
    name = "worker",
    description =
        "Join a sweep's coordinator (blksim sweep FILE --cluster HOST:PORT) and compute its points"
            + " until it is done (docs/cluster.md).")
public final class WorkerCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;
  private final PrintStream err;

  @Option(
      names = "--join",
      paramLabel = "HOST:PORT",
      required = true,
      description = "The coordinator's address, as its --cluster gave it.")
  String join;

  @Option(
      names = "--slots",
      paramLabel = "N",
      description = "Points computed at once (default: the number of cores).")
  Integer slots;

  @Option(
      names = "--bind",
      paramLabel = "HOST:PORT",
      description =
          "This worker's own address, which the coordinator must reach (default 127.0.0.1:0, any"
              + " free port on the loopback address).")
  String bind;

  @Option(
      names = "--key-store",
      paramLabel = "FILE",
      description =
          "A PKCS12 key store (its password in BLKSIM_KEY_STORE_PASSWORD): TLS with mutual"
              + " authentication; every node holds the same one.")
  Path keyStore;

  @Option(
      names = "--insecure-plain-tcp",
      description = "Plain TCP on an address other than loopback: anyone who reaches it can join.")
  boolean insecurePlain;

  WorkerCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    NodeAddress coordinator = NodeAddress.parse(join, "--join", false);
    NodeAddress self =
        bind == null ? new NodeAddress("127.0.0.1", 0) : NodeAddress.parse(bind, "--bind", true);
    boolean loopback = self.loopback("--bind") && coordinator.loopback("--join");
    if (bind == null && !coordinator.loopback("--join")) {
      throw new ConfigError(
          "--join "
              + coordinator
              + " is not on this machine: give --bind HOST:PORT, an address of"
              + " this worker that the coordinator reaches");
    }
    int n = slots == null ? Runtime.getRuntime().availableProcessors() : slots;
    if (n < 1 || n > 256) {
      throw new ConfigError("blksim worker: --slots " + n + ": accepted 1 to 256");
    }
    Transport transport =
        Transport.of(
            keyStore,
            insecurePlain,
            System.getenv(Transport.PASSWORD_ENV),
            loopback,
            "--bind " + self + " / --join " + coordinator,
            err);
    Path local = Files.createTempDirectory("blksim-worker");
    PointStore store = PointStore.open(local);
    ExecutorService runs = Executors.newFixedThreadPool(n, WorkerCommand::daemon);
    AtomicInteger exit = new AtomicInteger(0);
    ActorSystem<WorkerNode.Command> system =
        ClusterNode.start(
            WorkerNode.create(coordinator, n, store, runs, k -> compute(k, store), err, exit::set),
            ClusterNode.config(self, coordinator, transport, false));
    err.println("blksim worker: joining the sweep of " + coordinator + " ...");
    err.flush();
    system.getWhenTerminated().toCompletableFuture().join();
    runs.shutdownNow();
    PointStore.deleteTree(local);
    out.flush();
    return exit.get();
  }

  /** Computes {@code key} into the worker's own store, unless it is there already. */
  private static Path compute(PointKey key, PointStore store) {
    if (!store.has(key)) {
      PointRunner.compute(key, store, false);
    }
    return store.dir(key);
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "blksim-worker-run");
    t.setDaemon(true);
    return t;
  }
}

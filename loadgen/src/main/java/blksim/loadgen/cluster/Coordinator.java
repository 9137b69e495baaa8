package blksim.loadgen.cluster;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.delivery.ConsumerController;
import akka.actor.typed.delivery.WorkPullingProducerController;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.receptionist.ServiceKey;
import blksim.loadgen.sweep.PointKey;
import blksim.loadgen.sweep.PointStore;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A sweep's coordinator on a cluster: it hands its points to the workers through Akka's
 * work-pulling delivery (a {@link WorkPullingProducerController} that finds the workers' {@link
 * ConsumerController}s through the receptionist) and takes their files back into its point store. A
 * worker that leaves or dies with points unconfirmed has them sent to another worker; a point that
 * arrives twice is the same bytes, and the second copy is dropped.
 */
public final class Coordinator {
  private Coordinator() {}

  /** The key under which the workers' consumer controllers register. */
  public static final ServiceKey<ConsumerController.Command<PointJob>> POINTS =
      ServiceKey.create(ConsumerController.serviceKeyClass(), "blksim-sweep-points");

  /** What the coordinator hears: from its producer controller, and from the workers. */
  public interface Command {}

  /** One point to compute: its key and configuration, and where its files go. */
  public record PointJob(Versions versions, String key, String config, ActorRef<Command> replyTo)
      implements ClusterMessage {}

  /** A piece of one of a point's files, in order: the first of a file starts it anew. */
  public record PointFile(String key, String worker, String name, byte[] bytes, boolean first)
      implements Command, ClusterMessage {}

  /** All of a point's files have been sent: store them and say so to {@code ack}. */
  public record PointDone(
      Versions versions, String key, String worker, ActorRef<Worker.Command> ack)
      implements Command, ClusterMessage {}

  /** The point's run failed on the worker: it is reported, not stored. */
  public record PointFailed(
      Versions versions, String key, String worker, String why, ActorRef<Worker.Command> ack)
      implements Command, ClusterMessage {}

  private record Next(WorkPullingProducerController.RequestNext<PointJob> next)
      implements Command {}

  /** The largest piece of a file in one message: well under Artery's 256 KiB frame. */
  public static final int CHUNK = 64 * 1024;

  /**
   * The coordinator of {@code keys}: when every one is stored or has failed, {@code finished}
   * completes with the failures (key to why).
   *
   * @param stored hears of each point stored, for the progress line
   */
  public static Behavior<Command> create(
      List<PointKey> keys,
      PointStore store,
      boolean replace,
      PrintStream log,
      Consumer<String> stored,
      CompletableFuture<Map<String, String>> finished) {
    return Behaviors.setup(
        ctx -> new State(ctx, keys, store, replace, log, stored, finished).start());
  }

  private static final class State {
    private final ActorContext<Command> ctx;
    private final Deque<PointKey> toSend = new ArrayDeque<>();
    private final Set<String> pending = new TreeSet<>();
    private final Map<String, String> failures = new LinkedHashMap<>();
    private final PointStore store;
    private final boolean replace;
    private final PrintStream log;
    private final Consumer<String> stored;
    private final CompletableFuture<Map<String, String>> finished;
    private final Versions here = Versions.here();
    private WorkPullingProducerController.RequestNext<PointJob> demand;

    State(
        ActorContext<Command> ctx,
        List<PointKey> keys,
        PointStore store,
        boolean replace,
        PrintStream log,
        Consumer<String> stored,
        CompletableFuture<Map<String, String>> finished) {
      this.ctx = ctx;
      this.store = store;
      this.replace = replace;
      this.log = log;
      this.stored = stored;
      this.finished = finished;
      for (PointKey k : keys) {
        if (pending.add(k.hex())) {
          toSend.add(k);
        }
      }
    }

    Behavior<Command> start() {
      if (pending.isEmpty()) {
        finished.complete(failures);
        return Behaviors.empty();
      }
      ActorRef<WorkPullingProducerController.Command<PointJob>> producer =
          ctx.spawn(
              WorkPullingProducerController.create(
                  PointJob.class, "blksim-sweep", POINTS, Optional.empty()),
              "producer");
      ActorRef<WorkPullingProducerController.RequestNext<PointJob>> next =
          ctx.messageAdapter(WorkPullingProducerController.requestNextClass(), Next::new);
      producer.tell(new WorkPullingProducerController.Start<>(next));
      return Behaviors.receive(Command.class)
          .onMessage(Next.class, this::onNext)
          .onMessage(PointFile.class, this::onFile)
          .onMessage(PointDone.class, this::onDone)
          .onMessage(PointFailed.class, this::onFailed)
          .build();
    }

    private Behavior<Command> onNext(Next n) {
      demand = n.next();
      sendIfAsked();
      return Behaviors.same();
    }

    private void sendIfAsked() {
      if (demand != null && !toSend.isEmpty()) {
        PointKey k = toSend.poll();
        demand.sendNextTo().tell(new PointJob(here, k.hex(), k.config(), ctx.getSelf()));
        demand = null;
      }
    }

    private Behavior<Command> onFile(PointFile f) {
      if (!pending.contains(f.key()) || !safe(f.name()) || !safe(f.worker())) {
        return Behaviors.same();
      }
      Path dir = staging(f.key(), f.worker());
      try {
        Files.createDirectories(dir);
        Files.write(
            dir.resolve(f.name()),
            f.bytes(),
            f.first()
                ? new StandardOpenOption[] {
                  StandardOpenOption.CREATE,
                  StandardOpenOption.TRUNCATE_EXISTING,
                  StandardOpenOption.WRITE
                }
                : new StandardOpenOption[] {StandardOpenOption.APPEND});
      } catch (IOException e) {
        log.println("blksim sweep: cannot write " + dir + ": " + e.getMessage());
      }
      return Behaviors.same();
    }

    private Behavior<Command> onDone(PointDone d) {
      if (refused(d.versions(), d.key(), d.worker(), d.ack())) {
        return Behaviors.same();
      }
      if (pending.contains(d.key())) {
        try {
          store.commit(keyOf(d.key()), staging(d.key(), d.worker()), replace);
          pending.remove(d.key());
          stored.accept(d.key());
        } catch (IOException e) {
          log.println("blksim sweep: cannot store point " + d.key() + ": " + e.getMessage());
          return Behaviors.same();
        }
      }
      d.ack().tell(new Worker.PointStored(d.key()));
      return finishedYet();
    }

    private Behavior<Command> onFailed(PointFailed f) {
      if (refused(f.versions(), f.key(), f.worker(), f.ack())) {
        return Behaviors.same();
      }
      if (pending.remove(f.key())) {
        failures.put(f.key(), f.why());
        stored.accept(f.key());
      }
      f.ack().tell(new Worker.PointStored(f.key()));
      return finishedYet();
    }

    /**
     * Whether {@code versions} are another build's: then the worker is told so, with a line here.
     */
    private boolean refused(
        Versions versions, String key, String worker, ActorRef<Worker.Command> ack) {
      String why = here.mismatch(versions);
      if (why != null) {
        log.println("blksim sweep: refused point " + key + " from worker " + worker + ": " + why);
        ack.tell(new Worker.PointRefused(key, why));
      }
      return why != null;
    }

    private Behavior<Command> finishedYet() {
      sendIfAsked();
      if (pending.isEmpty()) {
        finished.complete(failures);
      }
      return Behaviors.same();
    }

    private PointKey keyOf(String hex) {
      return new PointKey(hex, "");
    }

    private Path staging(String key, String worker) {
      return store.dir(keyOf(key)).resolveSibling(".partial-" + key + "-" + worker);
    }

    /** A name that stays inside the point's directory. */
    private static boolean safe(String name) {
      return name.matches("[A-Za-z0-9._-]+") && !name.startsWith(".");
    }
  }

  /** A stream that prints nothing. */
  static PrintStream quiet() {
    return new PrintStream(OutputStream.nullOutputStream());
  }
}

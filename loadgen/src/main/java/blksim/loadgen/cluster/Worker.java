package blksim.loadgen.cluster;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.delivery.ConsumerController;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import blksim.loadgen.sweep.PointKey;
import blksim.loadgen.sweep.PointStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.Stream;

/**
 * One slot of a sweep's worker: a consumer of the coordinator's points through its own {@link
 * ConsumerController}, registered with the receptionist. It computes one point at a time into a
 * local store, sends the point's files to the coordinator in pieces, and confirms the point only
 * once the coordinator has stored it, so that a point lost with its worker is sent again.
 */
public final class Worker {
  private Worker() {}

  /** What a slot hears: points from its consumer controller, and the coordinator's answers. */
  public interface Command {}

  /** The coordinator has stored the point (or had it already). */
  public record PointStored(String key) implements Command, ClusterMessage {}

  /** The coordinator refused the point's files: another build. */
  public record PointRefused(String key, String why) implements Command, ClusterMessage {}

  private record Delivered(ConsumerController.Delivery<Coordinator.PointJob> delivery)
      implements Command {}

  private record Computed(
      ConsumerController.Delivery<Coordinator.PointJob> delivery, Path dir, Throwable failure)
      implements Command {}

  /**
   * A slot named {@code name} that computes into {@code store} on {@code runs}.
   *
   * @param compute runs a point's key into its directory of the store, returning it
   * @param refused told when a coordinator of another build is met: the worker then stops
   */
  public static Behavior<Command> create(
      String name,
      PointStore store,
      Executor runs,
      java.util.function.Function<PointKey, Path> compute,
      PrintStream log,
      Runnable refused) {
    return Behaviors.setup(ctx -> start(ctx, name, runs, compute, log, refused));
  }

  /** A method, not a block lambda: google-java-format 1.28 and 2.0 lay those out differently. */
  private static Behavior<Command> start(
      ActorContext<Command> ctx,
      String name,
      Executor runs,
      java.util.function.Function<PointKey, Path> compute,
      PrintStream log,
      Runnable refused) {
    ActorRef<ConsumerController.Command<Coordinator.PointJob>> consumer =
        ctx.spawn(ConsumerController.create(Coordinator.POINTS), "consumer-controller");
    consumer.tell(
        new ConsumerController.Start<>(
            ctx.messageAdapter(ConsumerController.deliveryClass(), Delivered::new)));
    return new Slot(ctx, name, runs, compute, log, refused).idle();
  }

  private static final class Slot {
    private final ActorContext<Command> ctx;
    private final String name;
    private final Executor runs;
    private final java.util.function.Function<PointKey, Path> compute;
    private final PrintStream log;
    private final Runnable refused;
    private final Versions here = Versions.here();

    Slot(
        ActorContext<Command> ctx,
        String name,
        Executor runs,
        java.util.function.Function<PointKey, Path> compute,
        PrintStream log,
        Runnable refused) {
      this.ctx = ctx;
      this.name = name;
      this.runs = runs;
      this.compute = compute;
      this.log = log;
      this.refused = refused;
    }

    /** Waiting for a point: the consumer controller delivers the next one after a confirmation. */
    Behavior<Command> idle() {
      return Behaviors.receive(Command.class)
          .onMessage(Delivered.class, d -> onPoint(d.delivery()))
          .onMessage(PointStored.class, s -> Behaviors.same())
          .onMessage(PointRefused.class, this::onRefused)
          .build();
    }

    private Behavior<Command> onPoint(ConsumerController.Delivery<Coordinator.PointJob> d) {
      Coordinator.PointJob job = d.message();
      String mismatch = here.mismatch(job.versions());
      if (mismatch != null) {
        // never computed, never confirmed: the point goes to a worker of the coordinator's build
        log.println(
            "blksim worker: refused point " + job.key() + " from the coordinator: " + mismatch);
        refused.run();
        return Behaviors.stopped();
      }
      PointKey key = new PointKey(job.key(), job.config());
      ctx.pipeToSelf(
          CompletableFuture.supplyAsync(() -> compute.apply(key), runs),
          (dir, failure) -> new Computed(d, dir, failure));
      return computing();
    }

    private Behavior<Command> computing() {
      return Behaviors.receive(Command.class)
          .onMessage(Computed.class, this::onComputed)
          .onMessage(PointRefused.class, this::onRefused)
          .build();
    }

    private Behavior<Command> onComputed(Computed c) {
      Coordinator.PointJob job = c.delivery().message();
      ActorRef<Command> self = ctx.getSelf();
      if (c.failure() != null) {
        Throwable why =
            c.failure() instanceof java.util.concurrent.CompletionException e
                    && e.getCause() != null
                ? e.getCause()
                : c.failure();
        job.replyTo()
            .tell(
                new Coordinator.PointFailed(
                    here, job.key(), name, String.valueOf(why.getMessage()), self));
      } else {
        try {
          send(job, c.dir());
        } catch (IOException e) {
          log.println("blksim worker: cannot read point " + job.key() + ": " + e.getMessage());
          return idle();
        }
        job.replyTo().tell(new Coordinator.PointDone(here, job.key(), name, self));
      }
      return awaitingStored(c.delivery());
    }

    private Behavior<Command> awaitingStored(ConsumerController.Delivery<Coordinator.PointJob> d) {
      return Behaviors.receive(Command.class)
          .onMessage(
              PointStored.class,
              s -> {
                if (!s.key().equals(d.message().key())) {
                  return Behaviors.same();
                }
                d.confirmTo().tell(ConsumerController.confirmed());
                return idle();
              })
          .onMessage(PointRefused.class, this::onRefused)
          .build();
    }

    private Behavior<Command> onRefused(PointRefused r) {
      log.println("blksim worker: the coordinator refused point " + r.key() + ": " + r.why());
      refused.run();
      return Behaviors.stopped();
    }

    /** Every file of {@code dir}, in pieces of at most {@link Coordinator#CHUNK} bytes. */
    private void send(Coordinator.PointJob job, Path dir) throws IOException {
      List<Path> files;
      try (Stream<Path> all = Files.list(dir)) {
        files = all.filter(Files::isRegularFile).sorted().toList();
      }
      for (Path f : files) {
        try (InputStream in = Files.newInputStream(f)) {
          boolean first = true;
          byte[] buf = new byte[Coordinator.CHUNK];
          int n;
          do {
            n = in.readNBytes(buf, 0, buf.length);
            if (n > 0 || first) {
              job.replyTo()
                  .tell(
                      new Coordinator.PointFile(
                          job.key(),
                          name,
                          f.getFileName().toString(),
                          Arrays.copyOf(buf, n),
                          first));
            }
            first = false;
          } while (n == buf.length);
        }
      }
    }
  }
}

package blksim.loadgen.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import akka.serialization.Serialization;
import akka.serialization.SerializationExtension;
import akka.serialization.Serializers;
import blksim.config.ConfigError;
import blksim.loadgen.sweep.PointKey;
import blksim.loadgen.sweep.PointStore;
import com.typesafe.config.ConfigFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterProtocolTest {
  @TempDir Path tmp;

  private static final Versions OTHER = new Versions("0.1.0", "f".repeat(64));

  @Test
  void aNodeOfAnotherBuildIsNamedAsSuch() {
    Versions here = Versions.here();
    assertNull(here.mismatch(Versions.here()));
    assertTrue(
        here.mismatch(OTHER).contains("model version is ffffffffffff"), here.mismatch(OTHER));
    assertTrue(here.mismatch(new Versions("0.2.0", here.model())).contains("blksim 0.2.0"));
    assertTrue(here.mismatch(null).contains("no version"));
  }

  @Test
  void addressesAreHostAndPortAndNothingElse() {
    assertEquals(
        new NodeAddress("127.0.0.1", 25520), NodeAddress.parse("127.0.0.1:25520", "--join", false));
    assertEquals(new NodeAddress("::1", 25520), NodeAddress.parse("[::1]:25520", "--join", false));
    assertEquals(0, NodeAddress.parse("localhost:0", "--bind", true).port());
    String[][] bad = {
      {"127.0.0.1", "no port"},
      {"127.0.0.1:", "no port"},
      {":25520", "no port"},
      {"::1:25520", "in brackets"},
      {"host:abc", "not a number"},
      {"host:0", "out of range; accepted 1 to 65535"},
      {"host:65536", "out of range"},
      {"ho st:1", "not a host name"},
    };
    for (String[] b : bad) {
      ConfigError e =
          assertThrows(ConfigError.class, () -> NodeAddress.parse(b[0], "--join", false), b[0]);
      assertTrue(e.getMessage().startsWith("--join "), e.getMessage());
      assertTrue(e.getMessage().contains(b[1]), b[0] + " -> " + e.getMessage());
    }
    assertTrue(NodeAddress.parse("127.0.0.1:1", "--join", false).loopback("--join"));
    assertTrue(!NodeAddress.parse("192.0.2.1:1", "--join", false).loopback("--join"));
  }

  @Test
  void onlyLoopbackGoesWithoutTlsUnlessTheUserInsists() throws Exception {
    PrintStream err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertTrue(!Transport.of(null, false, null, true, "x", err).tls());
    ConfigError open =
        assertThrows(
            ConfigError.class,
            () -> Transport.of(null, false, null, false, "--cluster 192.0.2.1:1", err));
    assertTrue(
        open.getMessage().contains("--key-store FILE")
            && open.getMessage().contains("--insecure-plain-tcp"));
    ByteArrayOutputStream warned = new ByteArrayOutputStream();
    Transport.of(
        null,
        true,
        null,
        false,
        "--cluster 192.0.2.1:1",
        new PrintStream(warned, true, StandardCharsets.UTF_8));
    assertTrue(
        warned
            .toString(StandardCharsets.UTF_8)
            .startsWith("blksim: warning: --insecure-plain-tcp"));
    Path junk = Files.writeString(tmp.resolve("junk.p12"), "not a key store");
    assertTrue(
        assertThrows(ConfigError.class, () -> Transport.of(junk, false, "pw", true, "x", err))
            .getMessage()
            .startsWith("--key-store "));
    assertTrue(
        assertThrows(
                ConfigError.class,
                () -> Transport.of(tmp.resolve("none.p12"), false, "pw", true, "x", err))
            .getMessage()
            .contains("no such file"));
    assertTrue(
        assertThrows(ConfigError.class, () -> Transport.of(junk, false, null, true, "x", err))
            .getMessage()
            .contains(Transport.PASSWORD_ENV));
    assertTrue(
        assertThrows(ConfigError.class, () -> Transport.of(junk, true, "pw", true, "x", err))
            .getMessage()
            .contains("not both"));
  }

  @Test
  void messagesCrossAsCborAndNothingElseIsSerialized() throws Exception {
    ActorSystem<Void> system =
        ActorSystem.create(
            Behaviors.empty(),
            ClusterNode.SYSTEM,
            ClusterNode.config(
                    new NodeAddress("127.0.0.1", 0),
                    new NodeAddress("127.0.0.1", 1),
                    Transport.of(null, false, null, true, "x", System.err),
                    false)
                .withFallback(ConfigFactory.parseString("akka.cluster.seed-nodes = []")));
    try {
      Serialization s = SerializationExtension.get(system.classicSystem());
      ActorRef<Coordinator.Command> ref =
          system.systemActorOf(Behaviors.empty(), "probe", akka.actor.typed.Props.empty());
      Coordinator.PointJob job =
          new Coordinator.PointJob(Versions.here(), "abc", "{\"blksim\":{}}", ref);
      Coordinator.PointFile file =
          new Coordinator.PointFile("abc", "w", "summary.json", new byte[] {1, 2, 3}, true);
      for (Object m : List.of(job, file, new Worker.PointStored("abc"))) {
        akka.serialization.Serializer ser = s.findSerializerFor(m);
        assertEquals("akka.serialization.jackson.JacksonCborSerializer", ser.getClass().getName());
        byte[] bytes = s.serialize(m).get();
        Object back = s.deserialize(bytes, ser.identifier(), Serializers.manifestFor(ser, m)).get();
        if (m instanceof Coordinator.PointFile f) {
          assertArrayEquals(f.bytes(), ((Coordinator.PointFile) back).bytes());
        } else {
          assertEquals(m, back);
        }
      }
      // a record that is not a ClusterMessage has no serializer: Java serialization is off
      record Stranger(String s) implements java.io.Serializable {}
      assertTrue(s.serialize(new Stranger("x")).isFailure());
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aCoordinatorAndItsSlotsInOneProcessStoreEveryPoint() throws Exception {
    PointStore store = PointStore.open(tmp.resolve("out"));
    PointStore workerStore = PointStore.open(tmp.resolve("worker"));
    List<PointKey> keys = List.of(key("a"), key("b"), key("c"), key("a"));
    CompletableFuture<Map<String, String>> done = new CompletableFuture<>();
    AtomicInteger computed = new AtomicInteger();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream logs = new PrintStream(log, true, StandardCharsets.UTF_8);
    Behavior<Void> guardian =
        Behaviors.setup(ctx -> run(ctx, keys, store, workerStore, computed, logs, done));
    ActorSystem<Void> system =
        ActorSystem.create(
            guardian,
            "local",
            ConfigFactory.parseString(
                "akka.reliable-delivery.consumer-controller.flow-control-window = 3\nakka.loglevel = OFF"));
    try {
      Map<String, String> failures = done.get(60, TimeUnit.SECONDS);
      assertEquals(Map.of("c", "no such point"), failures);
      assertTrue(store.has(key("a")) && store.has(key("b")) && !store.has(key("c")));
      assertEquals(
          "a", Files.readString(store.dir(key("a")).resolve("summary.json")).substring(0, 1));
      assertEquals(3, computed.get(), "each distinct point once");
    } finally {
      system.terminate();
    }
  }

  private static Behavior<Void> run(
      akka.actor.typed.javadsl.ActorContext<Void> ctx,
      List<PointKey> keys,
      PointStore store,
      PointStore workerStore,
      AtomicInteger computed,
      PrintStream log,
      CompletableFuture<Map<String, String>> done) {
    ctx.spawn(Coordinator.create(keys, store, false, log, k -> {}, done), "coordinator");
    for (int i = 0; i < 2; i++) {
      ctx.spawn(
          Worker.create(
              "w" + i,
              workerStore,
              Executors.newSingleThreadExecutor(),
              k -> fake(k, workerStore, computed),
              log,
              () -> {}),
          "slot" + i);
    }
    return Behaviors.empty();
  }

  @Test
  void pointsOfAnotherBuildAreRefusedWithALineAndNeverComputed() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream logs = new PrintStream(log, true, StandardCharsets.UTF_8);
    AtomicInteger computed = new AtomicInteger();
    CompletableFuture<Boolean> workerRefused = new CompletableFuture<>();
    CompletableFuture<Worker.Command> coordinatorSaid = new CompletableFuture<>();
    PointStore store = PointStore.open(tmp.resolve("out"));
    Behavior<Void> guardian =
        Behaviors.setup(
            ctx -> refusals(ctx, store, computed, logs, workerRefused, coordinatorSaid));
    ActorSystem<Void> system =
        ActorSystem.create(
            guardian,
            "refusals",
            ConfigFactory.parseString(
                "akka.reliable-delivery.consumer-controller.flow-control-window = 3\nakka.loglevel = OFF"));
    // and, in a system of its own (its producer would take the slot above), a worker of another
    // build sends its files to a coordinator of this one
    ActorSystem<Void> other =
        ActorSystem.create(
            Behaviors.setup(ctx -> coordinatorRefuses(ctx, store, logs, coordinatorSaid)),
            "refusals-coordinator",
            ConfigFactory.parseString("akka.loglevel = OFF"));
    try {
      assertTrue(workerRefused.get(60, TimeUnit.SECONDS));
      assertTrue(coordinatorSaid.get(60, TimeUnit.SECONDS) instanceof Worker.PointRefused);
      assertEquals(0, computed.get());
      String lines = log.toString(StandardCharsets.UTF_8);
      assertTrue(
          lines.contains(
              "blksim worker: refused point old from the coordinator: its model version is ffffffffffff"),
          lines);
      assertTrue(
          lines.contains(
              "blksim sweep: refused point a from worker w9: its model version is ffffffffffff"),
          lines);
      assertTrue(!store.has(key("a")));
    } finally {
      system.terminate();
      other.terminate();
    }
  }

  private static Behavior<Void> refusals(
      akka.actor.typed.javadsl.ActorContext<Void> ctx,
      PointStore store,
      AtomicInteger computed,
      PrintStream log,
      CompletableFuture<Boolean> workerRefused,
      CompletableFuture<Worker.Command> coordinatorSaid) {
    // a producer of another build offers a point to a slot of this one
    ActorRef<akka.actor.typed.delivery.WorkPullingProducerController.Command<Coordinator.PointJob>>
        producer =
            ctx.spawn(
                akka.actor.typed.delivery.WorkPullingProducerController.create(
                    Coordinator.PointJob.class,
                    "old-build",
                    Coordinator.POINTS,
                    java.util.Optional.empty()),
                "old-producer");
    ActorRef<Coordinator.Command> nobody = ctx.spawn(Behaviors.ignore(), "nobody");
    ActorRef<
            akka.actor.typed.delivery.WorkPullingProducerController.RequestNext<
                Coordinator.PointJob>>
        next =
            ctx.spawn(
                Behaviors.receive(
                        akka.actor.typed.delivery.WorkPullingProducerController
                            .<Coordinator.PointJob>requestNextClass())
                    .onAnyMessage(r -> offer(r, nobody))
                    .build(),
                "old-coordinator");
    producer.tell(new akka.actor.typed.delivery.WorkPullingProducerController.Start<>(next));
    ctx.spawn(
        Worker.create(
            "w0",
            store,
            Executors.newSingleThreadExecutor(),
            k -> {
              computed.incrementAndGet();
              return store.dir(k);
            },
            log,
            () -> workerRefused.complete(true)),
        "slot");
    return Behaviors.empty();
  }

  private static Behavior<
          akka.actor.typed.delivery.WorkPullingProducerController.RequestNext<Coordinator.PointJob>>
      offer(
          akka.actor.typed.delivery.WorkPullingProducerController.RequestNext<Coordinator.PointJob>
              r,
          ActorRef<Coordinator.Command> replyTo) {
    r.sendNextTo().tell(new Coordinator.PointJob(OTHER, "old", "{}", replyTo));
    return Behaviors.same();
  }

  private static Behavior<Worker.Command> said(
      Worker.Command m, CompletableFuture<Worker.Command> f) {
    f.complete(m);
    return Behaviors.same();
  }

  private static Behavior<Void> coordinatorRefuses(
      akka.actor.typed.javadsl.ActorContext<Void> ctx,
      PointStore store,
      PrintStream log,
      CompletableFuture<Worker.Command> coordinatorSaid) {
    ActorRef<Coordinator.Command> coordinator =
        ctx.spawn(
            Coordinator.create(
                List.of(key("a")), store, false, log, k -> {}, new CompletableFuture<>()),
            "coordinator");
    ActorRef<Worker.Command> ack =
        ctx.spawn(
            Behaviors.receive(Worker.Command.class)
                .onAnyMessage(m -> said(m, coordinatorSaid))
                .build(),
            "ack");
    coordinator.tell(new Coordinator.PointDone(OTHER, "a", "w9", ack));
    return Behaviors.empty();
  }

  /** A point "computed": a summary.json of its key's name, or a failure for "c". */
  private static Path fake(PointKey k, PointStore store, AtomicInteger computed) {
    computed.incrementAndGet();
    if (k.hex().equals("c")) {
      throw new IllegalStateException("no such point");
    }
    try {
      Path dir = store.dir(k);
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve("summary.json"), k.hex() + " " + "x".repeat(3 * Coordinator.CHUNK));
      return dir;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static PointKey key(String hex) {
    return new PointKey(hex, "{}");
  }
}

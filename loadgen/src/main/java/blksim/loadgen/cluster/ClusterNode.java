package blksim.loadgen.cluster;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The actor system of one node of a sweep's cluster (docs/cluster.md): Artery over TCP, or TLS with
 * mutual authentication; Jackson's CBOR for {@link ClusterMessage} and nothing else; the
 * coordinator as the seed and the oldest node, which the split-brain resolver keeps when a worker
 * becomes unreachable, so that a killed worker is downed and its points go to the others. The DNS
 * resolver is Akka's default (the JDK's), not the asynchronous one.
 */
public final class ClusterNode {
  /** The actor system's name: every node of a sweep's cluster has it. */
  public static final String SYSTEM = "blksim-sweep";

  /** The role of the coordinator's node: workers stop when it leaves. */
  public static final String COORDINATOR = "coordinator";

  private static final String FIXED =
      "akka.loglevel = WARNING\n"
          + "akka.stdout-loglevel = OFF\n"
          + "akka.log-dead-letters = off\n"
          + "akka.log-dead-letters-during-shutdown = off\n"
          + "akka.jvm-exit-on-fatal-error = off\n"
          + "akka.coordinated-shutdown.exit-jvm = off\n"
          + "akka.actor.provider = cluster\n"
          + "akka.actor.allow-java-serialization = off\n"
          + "akka.actor.serialization-bindings {\n"
          + "  \"blksim.loadgen.cluster.ClusterMessage\" = jackson-cbor\n"
          + "}\n"
          + "akka.remote.artery.ssl.config-ssl-engine.require-mutual-authentication = on\n"
          + "akka.cluster.downing-provider-class = \"akka.cluster.sbr.SplitBrainResolverProvider\"\n"
          + "akka.cluster.split-brain-resolver.active-strategy = keep-oldest\n"
          // a killed worker is downed this long after it became unreachable
          + "akka.cluster.split-brain-resolver.stable-after = 5s\n"
          + "akka.cluster.jmx.enabled = off\n"
          + "akka.cluster.log-info = off\n"
          // a slot holds one point at a time: with a window of 3 the consumer controller asks for
          // the
          // next point as it confirms one (with 2 it never asks again after the first: the request
          // after the first message is seqNr - 1 + window, which a window of 2 leaves at no demand)
          + "akka.reliable-delivery.consumer-controller.flow-control-window = 3\n"
          // a point may take minutes; its worker's death, not a timeout, sends it elsewhere
          + "akka.reliable-delivery.work-pulling.producer-controller.internal-ask-timeout = 24h\n";

  private ClusterNode() {}

  /** The configuration of a node bound to {@code bind} that joins {@code seed}. */
  public static Config config(
      NodeAddress bind, NodeAddress seed, Transport transport, boolean coordinator) {
    Map<String, Object> m = new HashMap<>();
    m.put("akka.cluster.roles", coordinator ? List.of(COORDINATOR) : List.of());
    m.put("akka.remote.artery.transport", transport.tls() ? "tls-tcp" : "tcp");
    m.put("akka.remote.artery.canonical.hostname", bind.akkaHost());
    m.put("akka.remote.artery.canonical.port", bind.port());
    m.put("akka.cluster.seed-nodes", List.of("akka://" + SYSTEM + "@" + seed));
    if (transport.tls()) {
      String ssl = "akka.remote.artery.ssl.config-ssl-engine.";
      String path = transport.keyStore().toAbsolutePath().toString();
      m.put(ssl + "key-store", path);
      m.put(ssl + "trust-store", path);
      m.put(ssl + "key-store-password", transport.password());
      m.put(ssl + "key-password", transport.password());
      m.put(ssl + "trust-store-password", transport.password());
    }
    return ConfigFactory.parseMap(m)
        .withFallback(ConfigFactory.parseString(FIXED))
        .withFallback(ConfigFactory.load());
  }

  /** Starts a node with {@code guardian}. */
  public static <T> ActorSystem<T> start(Behavior<T> guardian, Config config) {
    // SLF4J must be initialised before Akka's threads log, or it prints a "replay" warning.
    LoggerFactory.getILoggerFactory();
    return ActorSystem.create(guardian, SYSTEM, config);
  }
}

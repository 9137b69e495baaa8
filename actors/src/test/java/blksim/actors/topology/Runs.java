package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.engine.AkkaEngine;
import blksim.actors.engine.SequentialEngine;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.Scenario;
import org.junit.jupiter.api.Assertions;

/** What the topology tests share: settings from HOCON and overrides, and the engine check. */
final class Runs {
  private Runs() {}

  /** The seed command's ring: {@code -d32 -s32 -c32 -b512}. */
  static final String D32 =
      "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = 512 }\n";

  /** A run of {@code hocon} with {@code sets} on top, on the sequential engine. */
  static RunResult sequential(String hocon, String... sets) {
    return Topology.build(settings(hocon, sets), new TopologyTest.Recorder())
        .run(new SequentialEngine());
  }

  /** What building the run of {@code hocon} with {@code sets} on top refuses. */
  static ConfigError refused(String hocon, String... sets) {
    return Assertions.assertThrows(
        ConfigError.class,
        () -> Topology.build(settings(hocon, sets), new TopologyTest.Recorder()));
  }

  /** The settings of {@code hocon} with each {@code path=value} of {@code sets} on top. */
  static BlksimSettings settings(String hocon, String... sets) {
    Scenario s = new Scenario().hocon(hocon, "test");
    for (String set : sets) {
      s.set(set);
    }
    return s.settings();
  }

  /**
   * Runs {@code s} on both engines and checks that they agree on everything a report prints, and
   * that the books balance.
   *
   * @return the sequential engine's run
   */
  static RunResult sameOnBothEngines(BlksimSettings s) {
    TopologyTest.Recorder a = new TopologyTest.Recorder();
    TopologyTest.Recorder b = new TopologyTest.Recorder();
    RunResult seq = Topology.build(s, a).run(new SequentialEngine());
    RunResult akka = Topology.build(s, b).run(new AkkaEngine(s.engine().akkaConfig()));
    assertEquals(a.intervals, b.intervals, "the same status lines");
    assertEquals(seq.endPs(), akka.endPs());
    assertEquals(seq.messages(), akka.messages());
    assertEquals(seq.submitters(), akka.submitters());
    assertEquals(seq.workers(), akka.workers());
    assertEquals(seq.latencyNs(), akka.latencyNs());
    assertTrue(akka.books().balanced(), akka.books().violations().toString());
    return seq;
  }
}

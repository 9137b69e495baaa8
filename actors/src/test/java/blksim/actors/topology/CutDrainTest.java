package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.engine.AkkaEngine;
import blksim.actors.engine.Engine;
import blksim.actors.engine.Interruption;
import blksim.actors.engine.SequentialEngine;
import blksim.config.BlksimSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A run interrupted, then its drain cut: the engine delivers nothing more, and the books account
 * for the I/Os in flight. With the interruption requested before the run and no wall time allowed
 * for the drain, the stop is sent at the engine's first look and the cut made at its second, so the
 * run is a function of its configuration again and both engines can be held to one result.
 */
class CutDrainTest {

  /** Eight threads 128 deep on 64 tags, most of their I/Os waiting in io-wq at any time. */
  private static BlksimSettings deep() {
    return Runs.settings(
        "blksim.io-uring { depth = 128, batch-submit = 32, batch-complete = 32, block-size = 512,"
            + " threads = 8 }\nblksim.run.runtime = 5ms");
  }

  private static final class Cut {
    final RunResult result;
    final Interruption stop;

    Cut(BlksimSettings s, Engine engine, long drainWallNs) {
      Topology t = Topology.build(s, new TopologyTest.Recorder());
      stop = t.registry().interruption();
      stop.drainFor(drainWallNs);
      stop.request();
      result = t.run(engine);
    }

    long inFlight() {
      return result.submitters().stream().mapToLong(RunResult.Submitter::accepted).sum()
          - result.submitters().stream().mapToLong(RunResult.Submitter::completed).sum();
    }
  }

  @Test
  void aCutRunShouldBalanceWhatHoldsAtEveryStepAndNameWhatIsInFlight() {
    Cut c = new Cut(deep(), new SequentialEngine(), 0);
    assertTrue(c.stop.delivered() && c.stop.cut(), "told, then cut");
    assertTrue(c.stop.deliveredAtPs() <= c.stop.cutAtPs());
    assertTrue(c.result.endPs() >= c.stop.cutAtPs(), "the run's figures reach the cut");
    assertTrue(c.result.books().cut());
    assertTrue(c.result.books().balanced(), c.result.books().violations().toString());
    assertTrue(c.inFlight() > 0, "I/Os were in flight when the run was cut");
    List<String> open = c.result.books().leftInFlight();
    assertTrue(
        open.stream().anyMatch(v -> v.contains("tags still allocated at the end of the run")),
        open.toString());
    assertTrue(
        open.stream().anyMatch(v -> v.contains("the submitter thread never ended")),
        open.toString());
  }

  @Test
  void bothEnginesShouldCutAtTheSameDelivery() {
    Cut seq = new Cut(deep(), new SequentialEngine(), 0);
    BlksimSettings s = deep();
    Cut akka = new Cut(s, new AkkaEngine(s.engine().akkaConfig()), 0);
    assertEquals(seq.result.messages(), akka.result.messages());
    assertEquals(seq.stop.cutAtPs(), akka.stop.cutAtPs());
    assertEquals(seq.result.submitters(), akka.result.submitters());
    assertEquals(seq.result.latencyNs(), akka.result.latencyNs());
    assertEquals(seq.result.books().leftInFlight(), akka.result.books().leftInFlight());
    assertTrue(akka.result.books().balanced(), akka.result.books().violations().toString());
  }

  @Test
  void aDrainGivenItsTimeShouldEndWithEverythingBackAndNothingCut() {
    Cut c = new Cut(deep(), new SequentialEngine(), Long.MAX_VALUE);
    assertTrue(c.stop.delivered());
    assertFalse(c.stop.cut());
    assertFalse(c.result.books().cut());
    assertTrue(c.result.books().balanced(), c.result.books().violations().toString());
    assertEquals(0, c.inFlight(), "every I/O drained");
    assertEquals(List.of(), c.result.books().leftInFlight());
  }
}

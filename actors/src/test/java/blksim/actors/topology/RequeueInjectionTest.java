package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.engine.SequentialEngine;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import org.junit.jupiter.api.Test;

/**
 * null_blk's {@code requeue=} fault injection: each request it picks is turned away, alternately
 * with BLK_STS_RESOURCE and blk_mq_requeue_request, and kblockd dispatches it again; every I/O
 * still completes once, on the raw device and under dm-linear alike, and the counts are the
 * injection's.
 */
class RequeueInjectionTest {

  private static BlksimSettings run(String file, String requeue, String... sets) {
    String[] all = new String[sets.length + 1];
    all[0] = "null-blk.requeue=\"" + requeue + "\"";
    System.arraycopy(sets, 0, all, 1, sets.length);
    return Runs.settings(
        "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = 512,"
            + " files = [\""
            + file
            + "\"] }\nblksim.dm.tables = [\"0 524288000 linear /dev/nullb0 0\"]"
            + "\nblksim.run.runtime = 2ms",
        all);
  }

  private static RunResult.Hctx hctx(RunResult r) {
    return r.hctxs().get(0);
  }

  @Test
  void aFixedNumberOfFaultsShouldAlternateBusyAndRequeueOnRawAndDm() {
    for (String file : new String[] {"/dev/nullb0", "/dev/dm-0"}) {
      RunResult r = Runs.sameOnBothEngines(run(file, "1,100,0,7"));
      assertEquals(4, hctx(r).busy(), file + ": faults 1, 3, 5, 7 are BLK_STS_RESOURCE");
      assertEquals(3, hctx(r).requeued(), file + ": faults 2, 4, 6 are blk_mq_requeue_request");
      assertEquals(r.done(), r.submitters().get(0).completed(), file + ": every I/O once");
    }
  }

  @Test
  void aProbabilityShouldFailThatShareOfDispatchesAndLoseNothing() {
    for (String file : new String[] {"/dev/nullb0", "/dev/dm-0"}) {
      RunResult r = Runs.sameOnBothEngines(run(file, "1,10,0,-1"));
      RunResult.Hctx h = hctx(r);
      long faults = h.busy() + h.requeued();
      double share = (double) faults / (h.dispatched() + faults);
      assertTrue(share > 0.08 && share < 0.12, file + ": 10 % of dispatches, was " + share);
      assertTrue(Math.abs(h.busy() - h.requeued()) <= 1, file + ": alternating");
      assertEquals(r.done(), r.submitters().get(0).completed(), file + ": every I/O once");
      if (file.endsWith("dm-0")) {
        RunResult.Dm dm = r.dms().get(0);
        assertEquals(0, dm.requeuedPolledEagain(), "blk-mq's requeues are below DM's sight");
        assertEquals(r.done(), dm.dmIos());
      }
    }
  }

  @Test
  void spaceAndIntervalShouldDelayAndThinTheFaults() {
    RunResult third =
        Topology.build(run("/dev/nullb0", "3,100,0,-1"), new TopologyTest.Recorder())
            .run(new SequentialEngine());
    RunResult late =
        Topology.build(run("/dev/nullb0", "1,100,1000,10"), new TopologyTest.Recorder())
            .run(new SequentialEngine());
    RunResult.Hctx h3 = hctx(third);
    long f3 = h3.busy() + h3.requeued();
    assertEquals((h3.dispatched() + f3) / 3, f3, 1, "one call in three fails");
    assertEquals(10, hctx(late).busy() + hctx(late).requeued(), "ten, after 1000 let through");
  }

  @Test
  void aBadFaultStringShouldBeRefusedAsTheModuleRefusesIt() {
    ConfigError e = assertThrows(ConfigError.class, () -> run("/dev/nullb0", "1,10"));
    assertTrue(e.getMessage().contains("<interval>,<probability>,<space>,<times>"), e.getMessage());
    e = assertThrows(ConfigError.class, () -> run("/dev/nullb0", "1,101,0,1"));
    assertTrue(e.getMessage().contains("probability 0 to 100"), e.getMessage());
    BlksimSettings forever = run("/dev/nullb0", "1,100,0,-1");
    e = assertThrows(ConfigError.class, () -> Topology.build(forever, new TopologyTest.Recorder()));
    assertTrue(e.getMessage().contains("no I/O could complete"), e.getMessage());
  }
}

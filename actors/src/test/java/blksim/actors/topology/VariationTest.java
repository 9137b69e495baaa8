package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * Per-call variation (interference.variation): the seed run's latencies spread around the same
 * mean, the path costs what it cost, and a patch's A and B see the same draws.
 */
class VariationTest {
  private static final String SEED =
      Runs.D32 + "blksim.run.runtime = 50ms\n" + "blksim.interference.tick.enabled = false";

  private static RunResult run(String... sets) {
    return Runs.sequential(SEED, sets);
  }

  private static double nsPerIo(RunResult r) {
    return r.ledger().totalPs(0) / 1000.0 / r.reaps();
  }

  @Test
  void theSeedRunsLatenciesShouldSpreadAroundTheSameMean() {
    RunResult flat = run("interference.variation.enabled=false");
    RunResult varied = run();
    Histogram f = flat.latencyNs();
    Histogram v = varied.latencyNs();
    assertEquals(
        f.getValueAtPercentile(1),
        f.getValueAtPercentile(99.9),
        "without variation every I/O past the start takes as long");
    long p50 = v.getValueAtPercentile(50);
    long p99 = v.getValueAtPercentile(99);
    long p999 = v.getValueAtPercentile(99.9);
    assertTrue(v.getValueAtPercentile(1) < p50 && p50 < p99 && p99 < p999, v.toString());
    assertTrue(p999 < v.getMaxValue());
    assertEquals(f.getMean(), v.getMean(), f.getMean() * 0.002, "the same mean latency");
    assertEquals(nsPerIo(flat), nsPerIo(varied), nsPerIo(flat) * 0.002, "the same cost per I/O");
    assertTrue(varied.books().balanced(), varied.books().violations().toString());
  }

  @Test
  void aPatchShouldSeeTheSameDrawsSoItsDeltaCarriesNoNoise() {
    // bio-init-compound changes bio_init's price only: every other function is called as often,
    // in the same order, so with common random numbers its delta is bio_init's alone
    String patch = "kernel.patches=[bio-init-compound]";
    double flatDelta =
        nsPerIo(run("interference.variation.enabled=false", patch))
            - nsPerIo(run("interference.variation.enabled=false"));
    double variedDelta = nsPerIo(run(patch)) - nsPerIo(run());
    assertEquals(flatDelta, variedDelta, Math.abs(flatDelta) * 0.05);
  }

  @Test
  void bothEnginesShouldAgreeWithVariation() {
    Runs.sameOnBothEngines(
        Runs.settings(SEED, "interference.tick.enabled=true", "null-blk.irqmode=2"));
  }
}

package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import org.junit.jupiter.api.Test;

/**
 * The vmstat kworker (interference.vmstat): it visits a CPU whose I/Os pin pages (-B0) every
 * vm.stat_interval, at a tick, and never one that reads registered buffers (-B1).
 */
class VmstatTest {
  private static final String SEED =
      Runs.D32
          + "blksim.run.runtime = 100ms\n"
          + "blksim.interference.variation.enabled = false\n"
          + "blksim.interference.vmstat.interval = 8ms";

  private static RunResult run(String... sets) {
    return Runs.sequential(SEED, sets);
  }

  @Test
  void aCpuThatPinsPagesShouldHaveTheKworkerEveryInterval() {
    RunResult r = run("io-uring.fixed-buffers=false");
    CostLedger.Entry e = r.ledger().steps(0).get("vmstat_update");
    // 8 ms is two ticks at HZ=250; the first visit comes within the first interval after the tick's
    // phase
    assertTrue(e.calls() >= 11 && e.calls() <= 13, "100 ms at 8 ms: " + e.calls());
    assertEquals(7_000_000, e.ps() / e.calls(), "7 us a visit");
    assertEquals(e.ps(), r.ledger().time(0, CpuTime.KWORKER), "the kworker's time, apart");
    assertTrue(
        r.latencyNs().getMaxValue() >= r.latencyNs().getValueAtPercentile(50) + 7_000 + 1_845,
        "the I/Os in flight across the visit wait for the tick and the kworker");
    assertTrue(r.books().balanced(), r.books().violations().toString());
  }

  @Test
  void registeredBuffersOrNoTickShouldMeanNoKworker() {
    assertNull(run("io-uring.fixed-buffers=true").ledger().steps(0).get("vmstat_update"));
    assertNull(
        run("io-uring.fixed-buffers=false", "interference.tick.enabled=false")
            .ledger()
            .steps(0)
            .get("vmstat_update"));
    assertNull(
        run("io-uring.fixed-buffers=false", "interference.vmstat.enabled=false")
            .ledger()
            .steps(0)
            .get("vmstat_update"));
  }

  @Test
  void bothEnginesShouldAgreeWithTheKworker() {
    Runs.sameOnBothEngines(Runs.settings(SEED, "io-uring.fixed-buffers=false"));
  }
}

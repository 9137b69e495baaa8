package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.CostLedger;
import org.junit.jupiter.api.Test;

/**
 * The scheduler tick (interference.tick): how often, how long, where, and only when busy; with
 * calls at their mean cost (no interference.variation), so that a tick's cost is its facts'.
 */
class TickTest {
  private static final String SEED =
      Runs.D32 + "blksim.run.runtime = 100ms\n" + "blksim.interference.variation.enabled = false";

  private static RunResult run(String... sets) {
    return Runs.sequential(SEED, sets);
  }

  private static long ticks(RunResult r, int cpu) {
    CostLedger.Entry e = r.ledger().steps(cpu).get("tick_sched_timer");
    return e == null ? 0 : e.calls();
  }

  @Test
  void aBusyCpuShouldTickHzTimesASecondAndPayForEachTick() {
    RunResult off = run("interference.tick.enabled=false");
    RunResult on = run("interference.tick.enabled=true");
    assertEquals(0, ticks(off, 0));
    assertEquals(25, ticks(on, 0), "100 ms at HZ=250, from a phase within the first 4 ms");
    assertTrue(on.books().balanced(), on.books().violations().toString());
    // each tick: asm_sysvec_apic_timer_interrupt + hrtimer_interrupt + tick_sched_timer (1845 ns)
    long tickPs = on.ledger().steps(0).get("tick_sched_timer").ps() / 25;
    assertEquals(1_845_000, tickPs);
    assertTrue(on.reaps() < off.reaps(), "the ticks' time is the thread's no longer");
    assertTrue(
        on.latencyNs().getMaxValue() >= off.latencyNs().getValueAtPercentile(50) + 1845,
        "the I/Os in flight across a tick wait for it");
    assertEquals(
        off.latencyNs().getValueAtPercentile(50),
        on.latencyNs().getValueAtPercentile(50),
        "most I/Os see no tick");
  }

  @Test
  void aBusyCpusTickShouldRaiseTheLoadBalanceEveryMaxIntervalTimesBusyFactor() {
    RunResult r = run("interference.tick.enabled=true");
    CostLedger.Entry lb = r.ledger().steps(0).get("run_rebalance_domains");
    // 2 CPUs: max_interval 4 ms x busy_factor 16 = 64 ms, 16 ticks; in 100 ms, one or two
    assertTrue(lb.calls() >= 1 && lb.calls() <= 2, "balances: " + lb.calls());
    assertEquals(992_000, lb.ps() / lb.calls(), "992 ns each");
    RunResult none = run("interference.tick.enabled=true", "interference.tick.load-balance=false");
    assertEquals(null, none.ledger().steps(0).get("run_rebalance_domains"));
    assertTrue(
        r.latencyNs().getMaxValue() >= none.latencyNs().getMaxValue() + 992,
        "the I/Os across a tick that balances wait for both");
  }

  @Test
  void aCpuWhoseThreadSleepsShouldNotTickWhileIdle() {
    RunResult r =
        run("interference.tick.enabled=true", "io-uring.polled=false", "null-blk.irqmode=2");
    long n = ticks(r, 0);
    assertTrue(n > 0 && n < 25, "some ticks find the CPU idle (NO_HZ_IDLE): " + n);
    assertTrue(r.books().balanced(), r.books().violations().toString());
  }

  @Test
  void ticksShouldComeAtTheSameVirtualTimesForTheSameSeed() {
    RunResult a = run("interference.tick.enabled=true");
    RunResult b = run("interference.tick.enabled=true", "kernel.patches=[bio-init-compound]");
    assertEquals(ticks(a, 0), ticks(b, 0), "a patch does not move the ticks");
    assertEquals(
        a.latencyNs().getCountAtValue(a.latencyNs().getMaxValue()),
        b.latencyNs().getCountAtValue(b.latencyNs().getMaxValue()),
        "the same I/Os wait for them");
  }

  @Test
  void bothEnginesShouldAgreeWithTicks() {
    Runs.sameOnBothEngines(
        Runs.settings(
            SEED, "interference.tick.enabled=true", "io-uring.polled=false", "null-blk.irqmode=2"));
  }
}

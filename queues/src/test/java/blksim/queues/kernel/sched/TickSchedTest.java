package blksim.queues.kernel.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.Scenario;
import org.junit.jupiter.api.Test;

/** A CPU's tick timer (kernel/time/tick-sched.c), as docs/kernel.md describes it. */
class TickSchedTest {
  private static final long PERIOD = 4_000_000_000L; // HZ=250

  private static BlksimSettings settings(String... sets) {
    Scenario s = new Scenario().hocon("blksim.run.runtime = 100ms", "test");
    s.set("interference.tick.enabled=true");
    for (String set : sets) {
      s.set(set);
    }
    return s.settings();
  }

  @Test
  void everyCpuShouldTickOnTheSameJiffyBoundary() {
    BlksimSettings s = settings("cpu.count=8");
    TickSched first = TickSched.first(s, 0, 8);
    assertEquals(PERIOD, first.periodPs());
    for (int cpu = 1; cpu < 8; cpu++) {
      assertEquals(first.atPs(), TickSched.first(s, cpu, 8).atPs(), "cpu " + cpu);
    }
    assertEquals(
        TickSched.schedTick(s).phasePs(),
        first.atPs(),
        "the ticks that end CFS slices are those ticks");
    assertNotEquals(
        first.atPs(),
        TickSched.first(settings("run.seed=2"), 0, 2).atPs(),
        "the phase is the seed's");
  }

  @Test
  void eachCpuShouldBalanceAtAPhaseOfItsOwn() {
    BlksimSettings s = settings("cpu.count=8");
    long[] at = new long[8];
    for (int cpu = 0; cpu < 8; cpu++) {
      TickSched t = TickSched.first(s, cpu, 8);
      assertTrue(t.balanceEveryPs() > 0, "load balance on by default");
      assertTrue(t.balanceAtPs() >= t.atPs() && t.balanceAtPs() < t.atPs() + t.balanceEveryPs());
      at[cpu] = t.balanceAtPs();
    }
    assertTrue(java.util.Arrays.stream(at).distinct().count() > 1, "phases differ by CPU");
  }

  @Test
  void aTickShouldRaiseTheBalanceOnlyOnABusyCpuAndOnlyOnceItIsDue() {
    TickSched t = new TickSched(10, 10, 1000, 30, 100, 0, 0);
    assertFalse(t.balances(true), "not due before balanceAtPs");
    TickSched due = t.next(false, false).next(false, false);
    assertEquals(30, due.atPs());
    assertTrue(due.balances(true));
    assertFalse(due.balances(false), "an idle CPU does not tick (NO_HZ_IDLE)");
    TickSched after = due.next(true, false);
    assertEquals(130, after.balanceAtPs(), "the next balance one interval later");
    assertEquals(30, due.next(false, false).balanceAtPs(), "a balance not made stays due");
  }

  @Test
  void vmstatShouldFireOnlyWithItsIntervalSet() {
    TickSched none = new TickSched(10, 10, 1000, 0, 0, 0, 0);
    assertFalse(none.firesVmstat(true), "no interval: the VM counters do not change");
    TickSched t = new TickSched(10, 10, 1000, 0, 0, 10, 50);
    assertTrue(t.firesVmstat(true));
    assertEquals(60, t.next(false, true).vmstatAtPs());
  }

  @Test
  void theTimerShouldStopBeforeTheRuntimesEnd() {
    assertTrue(new TickSched(980, 10, 1000, 0, 0, 0, 0).rearms());
    assertFalse(new TickSched(990, 10, 1000, 0, 0, 0, 0).rearms(), "990 + 10 is the end");
  }

  @Test
  void noTickShouldBeArmedWithoutInterferenceTick() {
    Scenario s = new Scenario().hocon("blksim.interference.tick.enabled = false", "test");
    BlksimSettings off = s.settings();
    assertNull(TickSched.first(off, 0, 1));
    assertEquals(0, TickSched.schedTick(off).phasePs(), "slices end at phase 0, free of the seed");
  }
}

package blksim.queues.kernel.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Ticks that fire while a call of the running task is out wait for the call's end, and the
 * interrupt there takes each, with the load balances and kworker visits they brought.
 */
class PendingTicksTest {
  @Test
  void theInterruptAtTheCallsEndShouldTakeEveryTickThatWaitedWithWhatItBrought() {
    PendingTicks pending = new PendingTicks();
    assertTrue(pending.isEmpty());
    pending.add(false, false);
    pending.add(true, false); // a tick at the balance's time raised SCHED_SOFTIRQ
    pending.add(true, true); // and one fired vmstat_update's timer too
    assertFalse(pending.isEmpty());
    assertEquals(new PendingTicks.Ticks(3, 2, 1), pending.drain());
    assertTrue(pending.isEmpty(), "taken: none wait after the interrupt");
  }

  @Test
  void anInterruptWithNoTickWaitingShouldTakeNone() {
    PendingTicks pending = new PendingTicks();
    assertSame(PendingTicks.Ticks.NONE, pending.drain());
    pending.add(false, false);
    pending.drain();
    assertSame(PendingTicks.Ticks.NONE, pending.drain());
  }
}

package blksim.queues.kernel.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SchedTickTest {
  @Test
  void theLastTickAtOrBeforeATime() {
    SchedTick tick = new SchedTick(4000, 1000);
    assertEquals(-1, tick.atOrBefore(999), "before the first");
    assertEquals(1000, tick.atOrBefore(1000));
    assertEquals(1000, tick.atOrBefore(4999));
    assertEquals(5000, tick.atOrBefore(5000));
    assertEquals(0, new SchedTick(4000, 0).atOrBefore(3999));
  }

  @Test
  void aPhaseOutsideItsPeriodIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new SchedTick(4000, 4000));
    assertThrows(IllegalArgumentException.class, () -> new SchedTick(0, 0));
  }
}

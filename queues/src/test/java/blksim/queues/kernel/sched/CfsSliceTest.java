package blksim.queues.kernel.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import blksim.queues.time.VirtualTime;
import org.junit.jupiter.api.Test;

class CfsSliceTest {
  private static final long MS = VirtualTime.ps(1_000_000);

  @Test
  void theSliceIsHalfTheScaledLatency() {
    assertEquals(3 * MS, new CfsSlice(1, MS, 0).slicePs(), "1 CPU: factor 1");
    assertEquals(6 * MS, new CfsSlice(2, MS, 0).slicePs(), "2 CPUs: factor 2");
    assertEquals(9 * MS, new CfsSlice(4, MS, 0).slicePs(), "4 and 7 CPUs: factor 3");
    assertEquals(9 * MS, new CfsSlice(7, MS, 0).slicePs());
    assertEquals(12 * MS, new CfsSlice(8, MS, 0).slicePs(), "8 CPUs and more: factor 4");
    assertEquals(12 * MS, new CfsSlice(64, MS, 0).slicePs());
  }

  @Test
  void theTickThatEndsTheSliceIsTheFirstStrictlyMoreThanASliceLater() {
    long phase = 250_000_000L; // a quarter of a 1 ms tick
    CfsSlice s = new CfsSlice(1, MS, phase);
    assertEquals(phase + 3 * MS, s.reschedTickPs(phase - 1), "delta_exec is 3 ms + 1 ps there");
    assertEquals(phase + 4 * MS, s.reschedTickPs(phase), "exactly the slice: not more");
    assertEquals(phase + 4 * MS, s.reschedTickPs(phase + MS - 1));
    assertEquals(phase, new CfsSlice(1, 4 * MS, phase).reschedTickPs(-4 * MS));
  }

  @Test
  void aTickPhaseOutsideItsPeriodIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new CfsSlice(1, MS, MS));
    assertThrows(IllegalArgumentException.class, () -> new CfsSlice(0, MS, 0));
  }
}

package blksim.queues.tiouring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * I/Os between their stamp and their reap, over the run: the ground truth that Little's law holds
 * the latency histogram to (the fuzzer's oracle), kept as exact sums.
 */
class InFlightClockTest {
  @Test
  void theMeanShouldCountReapedIosForTheirTimeOutAndTheOthersUpToTheEnd() {
    InFlightClock clock = new InFlightClock();
    clock.stamped(0);
    clock.stamped(100);
    clock.reaped(0, 300); // in flight 0..300
    assertEquals(1, clock.out()); // the other from 100 to the end
    assertEquals((300 + 400) / 500.0, clock.mean(500), 1e-12);
  }

  @Test
  void littlesLawShouldHoldForASteadyStream() {
    // one I/O stamped every 10 ps, each reaped 30 ps later: three in flight in the steady state
    InFlightClock clock = new InFlightClock();
    for (long t = 0; t < 10_000; t += 10) {
      clock.stamped(t);
      if (t >= 30) {
        clock.reaped(t - 30, t);
      }
    }
    assertEquals(3, clock.out());
    assertEquals(3.0, clock.mean(10_000), 0.01);
    assertEquals(0, clock.mean(0));
  }
}

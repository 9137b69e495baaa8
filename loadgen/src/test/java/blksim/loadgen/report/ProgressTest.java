package blksim.loadgen.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The progress bar's line: virtual time done, simulated I/Os per wall second, time left. */
class ProgressTest {
  @Test
  void theLineShouldSayHowFarTheRunIsAndHowLongItHasLeft() {
    assertEquals(
        "blksim [########......................]  25% of 10.000 s virtual, 3.30M sim I/Os per wall"
            + " s, ETA 9 s ",
        Progress.line(2_500_000_000_000L, 10_000_000_000_000L, 9_900_000, 3_000_000_000L));
    assertEquals(
        "blksim [##############################] 100% of 1.000 s virtual, 0 sim I/Os per wall s,"
            + " ETA 0 s ",
        Progress.line(2_000_000_000_000L, 1_000_000_000_000L, 0, 1_000_000_000L));
  }
}

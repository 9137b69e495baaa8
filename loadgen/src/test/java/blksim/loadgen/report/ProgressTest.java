package blksim.loadgen.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The progress bar's line: virtual time done, simulated I/Os per wall second, time left. */
class ProgressTest {
  @Test
  void theLineShouldSayHowFarTheRunIsAndHowLongItHasLeftAtTheWindowsPace() {
    // a quarter done; the window saw 1 s of virtual time in 2 s of wall time: 7.5 s left at 2 s a
    // second, 15 s; its 6.6M I/Os in those 2 s, 3.30M a second
    assertEquals(
        "blksim [########......................]  25% of 10.000 s virtual, 3.30M sim I/Os per wall"
            + " s, ETA 15 s",
        Progress.line(
            2_500_000_000_000L,
            10_000_000_000_000L,
            6_600_000,
            1_000_000_000_000L,
            2_000_000_000L));
    assertEquals(
        "blksim [##############################] 100% of 1.000 s virtual, 0 sim I/Os per wall s,"
            + " ETA 0 s",
        Progress.line(2_000_000_000_000L, 1_000_000_000_000L, 0, 0, 1_000_000_000L));
  }

  @Test
  void whatTheRunWritesToStdoutShouldClearTheBarFirst() throws java.io.IOException {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    Progress p = Progress.startShown(new java.io.PrintStream(err, true), "blksim [###] 10%");
    Progress.Guarded g = new Progress.Guarded(out);
    g.watch(p);
    g.write("IOPS=3.30M\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertEquals("\rblksim [###] 10%\r" + " ".repeat(16) + "\r", err.toString());
    assertEquals("IOPS=3.30M\n", out.toString());
    g.write('x');
    assertEquals("\rblksim [###] 10%\r" + " ".repeat(16) + "\r", err.toString(), "once");
  }

  @Test
  void blksimProgressShouldBeZeroOneOrUnset() {
    assertEquals(Boolean.TRUE, Progress.wanted("1"));
    assertEquals(Boolean.FALSE, Progress.wanted("0"));
    assertEquals(null, Progress.wanted(null));
    assertEquals(null, Progress.wanted(""));
    for (String bad : new String[] {"banana", "yes", "１", "2"}) {
      blksim.config.ConfigError e =
          org.junit.jupiter.api.Assertions.assertThrows(
              blksim.config.ConfigError.class, () -> Progress.wanted(bad));
      assertEquals(
          "BLKSIM_PROGRESS="
              + bad
              + ": accepted 0 (no progress line), 1 (always one), or unset (when stderr is a"
              + " terminal)",
          e.getMessage());
    }
  }
}

package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * null_blk's {@code timeout=} fault injection: a request it picks on a default queue is never
 * completed by the driver; blk-mq's timeout ends it with BLK_STS_TIMEOUT, and t/io_uring reports
 * the error and stops, as the real tool does. A poll queue's requests complete all the same.
 */
class TimeoutInjectionTest {

  private static BlksimSettings run(String file, boolean polled, String timeout) {
    return Runs.settings(
        "blksim.io-uring { depth = 8, batch-submit = 8, batch-complete = 8, block-size = 512,"
            + " polled = "
            + polled
            + ", files = [\""
            + file
            + "\"] }\nblksim.dm.tables = [\"0 524288000 linear /dev/nullb0 0\"]"
            + "\nblksim.queue.io-timeout = 100us\nblksim.run.runtime = 1ms",
        "null-blk.timeout=\"" + timeout + "\"");
  }

  @Test
  void aTimedOutRequestShouldEndWithEtimedoutAndStopTheThread() {
    for (String file : new String[] {"/dev/nullb0", "/dev/dm-0"}) {
      RunResult r = Runs.sameOnBothEngines(run(file, false, "1,100,100,1"));
      RunResult.Submitter sub = r.submitters().get(0);
      assertEquals(List.of("io: unexpected ret=-110"), sub.fatal(), file);
      assertEquals(r.done(), sub.completed(), file + ": every I/O completed once");
      assertTrue(r.latencyNs().getMaxValue() >= 100_000, file + ": the timeout's 100 us");
    }
  }

  @Test
  void pollQueuesShouldCompleteWhatTheInjectionPicked() {
    RunResult plain = Runs.sameOnBothEngines(run("/dev/nullb0", true, ""));
    RunResult picked = Runs.sameOnBothEngines(run("/dev/nullb0", true, "1,100,0,-1"));
    assertEquals(plain.done(), picked.done(), "null_poll ignores fake_timeout");
    assertTrue(picked.submitters().get(0).fatal().isEmpty());
  }
}

package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An IOPOLL ring on a null_blk queue without polling, its requests ended by timers (irqmode=2):
 * each bio lost REQ_POLLED at submission, so io_do_iopoll's bio_poll returns at once, and the ring
 * spins, busy, until the timer's interrupt ends the bio (io_complete_rw_iopoll) and the next pass
 * finds it done.
 */
class UnpolledSpinTest {
  private static final String SPIN =
      Runs.D32
          + "blksim.run.runtime = 1ms\n"
          + "blksim.io-uring.polled = true\n"
          + "blksim.null-blk { submit-queues = 1, poll-queues = 0, no-sched = true, irqmode = 2,"
          + " completion-nsec = 20000 }\n";

  private static long calls(RunResult r, String fn) {
    Map<String, CostLedger.Entry> steps = r.ledger().steps(0);
    return steps.containsKey(fn) ? steps.get(fn).calls() : 0;
  }

  @Test
  void theRingShouldSpinUntilEachBatchsTimersHaveFired() {
    RunResult r = Runs.sameOnBothEngines(Runs.settings(SPIN));
    long calls = r.calls();
    assertTrue(calls > 10, "calls: " + calls);
    assertEquals(32 * calls, r.reaps(), "each call waits for its 32");
    // a batch's timers fire 20 us after its queue_rq: no call can be shorter
    assertTrue(calls * 20_000_000L <= r.endPs(), calls + " calls in " + r.endPs() + " ps");
    assertTrue(calls(r, "io_do_iopoll (found nothing)") > 10 * calls, "passes that found nothing");
    assertEquals(0, calls(r, "null_poll"), "bio_poll of an unpolled bio never reaches the driver");
    assertEquals(calls(r, "null_cmd_timer_expired"), r.hctxs().get(0).dispatched());
    long poll = r.ledger().time(0, CpuTime.POLL);
    assertTrue(poll > r.endPs() / 2, "the CPU spins, busy: " + poll + " of " + r.endPs() + " ps");
  }
}

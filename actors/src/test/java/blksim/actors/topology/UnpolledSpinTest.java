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
    CostLedger.Entry empty =
        r.ledger()
            .steps(0, id -> id == blksim.queues.cost.KernelFn.IO_DO_IOPOLL_EMPTY ? "empty" : "")
            .get("empty");
    assertTrue(empty.calls() > 10 * calls, "passes that found nothing");
    assertEquals(0, calls(r, "null_poll"), "bio_poll of an unpolled bio never reaches the driver");
    assertEquals(calls(r, "null_cmd_timer_expired"), r.hctxs().get(0).dispatched());
    long poll = r.ledger().time(0, CpuTime.POLL);
    assertTrue(poll > r.endPs() / 2, "the CPU spins, busy: " + poll + " of " + r.endPs() + " ps");
  }

  @Test
  void biosTheRingPuntsShouldBeReissuedByIoWqUnpolledAndPolledForAsTheirsAre() {
    // REQ_NOWAIT bios that find no tag go to io-wq, whose reissue (still REQ_NOWAIT:
    // bio_set_polled) retries until it gets one; the worker lists each request on the ring's
    // IOPOLL list under uring_lock. -d128 on 64 tags with timers, which fire on the worker's CPU
    // and interrupt it while it waits for the mutex; or three rings' batches of 32 on one queue
    // with irqmode=0, where the reissue ends in queue_rq.
    String[][] cases = {
      {"io-uring.depth = 128", "null-blk.completion-nsec = 100000", "cpu.count = 2"},
      {"null-blk.irqmode = 0", "io-uring.threads = 3", "cpu.count = 6"}
    };
    for (String[] sets : cases) {
      RunResult r = Runs.sameOnBothEngines(Runs.settings(SPIN, sets));
      String what = String.join(", ", sets);
      assertEquals(r.submitters().size(), r.workers().size(), what);
      long punted = 0;
      for (RunResult.Worker w : r.workers()) {
        punted += w.punted();
        assertEquals(0, w.tagSleeps(), "REQ_NOWAIT: retried, never asleep: " + what);
      }
      assertTrue(punted > 0, what);
      for (RunResult.Submitter sub : r.submitters()) {
        assertEquals(sub.accepted(), sub.completed(), "every I/O completed once: " + what);
      }
    }
  }
}

package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * mq-deadline on null_blk's one hardware queue (elevator_get_default): each plug flush inserted
 * under dd->lock, each request dispatched from it under the lock again with a driver tag, and
 * finished at its end; requests come from the scheduler's q->nr_requests tags.
 */
class SchedulerTest {
  private static final String ONE_QUEUE =
      Runs.D32
          + "blksim.run.runtime = 2ms\n"
          + "blksim.io-uring.polled = false\n"
          + "blksim.null-blk { submit-queues = 1, poll-queues = 0 }\n";

  private static RunResult run(String... sets) {
    RunResult r = Runs.sequential(ONE_QUEUE, sets);
    assertTrue(r.books().balanced(), r.books().violations().toString());
    return r;
  }

  private static long calls(RunResult r, String fn) {
    Map<String, CostLedger.Entry> steps = r.ledger().steps(0);
    return steps.containsKey(fn) ? steps.get(fn).calls() : 0;
  }

  @Test
  void oneQueueShouldRunEveryRequestThroughMqDeadline() {
    RunResult r = run();
    RunResult.Hctx h = r.hctxs().get(0);
    assertNotNull(h.sched(), "one hardware queue: mq-deadline by default");
    assertEquals(128, h.nrTags(), "2 * min(hw_queue_depth, BLKDEV_DEFAULT_RQ) sched tags");
    assertEquals(64, h.sched().driverTags());
    long ios = h.dispatched();
    assertEquals(ios, calls(r, "dd_dispatch_request"), "one dispatch per request");
    assertEquals(ios, calls(r, "dd_insert_request"));
    assertEquals(ios, calls(r, "blk_mq_get_driver_tag"));
    assertEquals(ios, calls(r, "dd_finish_request"));
    assertEquals(2 * ios, calls(r, "sbitmap_queue_clear"), "the driver and the sched tag go back");
    long flushes = calls(r, "dd_insert_requests");
    assertEquals(ios / 32, flushes, "a plug of 32 a submission, inserted at once");
    assertEquals(
        ios + flushes + calls(r, "dd_bio_merge"),
        h.sched().lockTaken(),
        "dd->lock: each insert list, each dispatch, each merge lookup");
    assertEquals(0, h.sched().lockSpun(), "one CPU never waits for itself");
    assertTrue(calls(r, "elv_rb_add") > 4 * ios, "inserts walk ~log2(32) levels of the tree");
  }

  @Test
  void noSchedShouldRunNoneAndBeFaster() {
    RunResult dd = run();
    RunResult none = run("null-blk.no-sched = true");
    assertNull(none.hctxs().get(0).sched());
    assertEquals(64, none.hctxs().get(0).nrTags());
    assertTrue(
        none.reaps() > 1.2 * dd.reaps(),
        "mq-deadline costs: " + none.reaps() + " vs " + dd.reaps());
    RunResult named = run("null-blk.no-sched = true", "queue.scheduler = mq-deadline");
    assertEquals(dd.reaps(), named.reaps(), "echo mq-deadline > scheduler overrides no_sched");
  }

  @Test
  void mergeLookupsShouldTakeTheLockUnlessNomerges2() {
    RunResult merges = run("queue.nomerges = 0");
    assertEquals(merges.hctxs().get(0).dispatched(), calls(merges, "dd_bio_merge"));
    assertEquals(0, calls(run("queue.nomerges = 2"), "dd_bio_merge"));
    RunResult seq = run("queue.nomerges = 0", "io-uring.random-io = false");
    RunResult.Hctx h = seq.hctxs().get(0);
    assertEquals(32.0, (double) (h.dispatched() + h.merged()) / h.dispatched(), 0.01);
    assertEquals(h.dispatched(), calls(seq, "dd_insert_request"), "merged in the plug first");
  }

  @Test
  void threadsOnTheQueueShouldShareDdLock() {
    RunResult two =
        Runs.sequential(
            ONE_QUEUE, "io-uring.threads = 2", "cpu.count = 2", "io-uring.batch-submit = 16");
    assertTrue(two.books().balanced(), two.books().violations().toString());
    RunResult.Sched s = two.hctxs().get(0).sched();
    assertTrue(s.lockSpun() > 0 && s.lockWaitPs() > 0, "two CPUs meet on dd->lock: " + s);
    assertTrue(
        two.ledger().steps(0).containsKey("[line from another CPU] mq-deadline dd->lock")
            || two.ledger().steps(1).containsKey("[line from another CPU] mq-deadline dd->lock"));
  }

  private static final String TIMERS =
      "blksim.io-uring { depth = 128, batch-submit = 32, batch-complete = 32, polled = false }\n"
          + "blksim.run.runtime = 2ms\n"
          + "blksim.null-blk { submit-queues = 1, poll-queues = 0, irqmode = 2,"
          + " completion-nsec = 100000 }\n";

  @Test
  void requestsShouldWaitForADriverTagOnHctxDispatchUntilKblockdRestartsTheQueue() {
    RunResult r = Runs.sequential(TIMERS);
    assertTrue(r.books().balanced(), r.books().violations().toString());
    RunResult.Hctx h = r.hctxs().get(0);
    assertEquals(128, h.maxInUse(), "-d128 fits the 128 sched tags: no -EAGAIN, no io-wq");
    assertTrue(r.workers().isEmpty());
    assertTrue(h.sched().waited() > 0 && h.sched().restarts() > 0, h.sched().toString());
    // Little's law on the 64 driver tags: at most 64 requests in null_blk per 100 us
    double bound = 64 * 2e-3 / 100e-6;
    assertTrue(r.reaps() <= bound && r.reaps() > 0.85 * bound, r.reaps() + " of " + bound);
    assertTrue(r.ledger().time(0, CpuTime.KWORKER) > 0, "kblockd's runs preempt the thread");
    assertEquals(h.sched().restarts(), r.ledger().steps(0).get("blk_mq_run_work_fn").calls());
  }

  @Test
  void aRestartShouldEndAnotherThreadsRequestsInItsOwnRing() {
    // kblockd on one CPU dispatches whichever requests wait: their timers fire there, and
    // io_complete_rw sends each back to its ring
    RunResult two =
        Runs.sequential(
            TIMERS,
            "io-uring.threads = 2",
            "cpu.count = 2",
            "io-uring.depth = 64",
            "io-uring.batch-submit = 16",
            "io-uring.batch-complete = 16");
    assertTrue(two.books().balanced(), two.books().violations().toString());
    assertTrue(two.hctxs().get(0).sched().waited() > 0);
    assertEquals(two.submitters().get(0).done(), two.submitters().get(0).completed(), "ring 0");
    Runs.sameOnBothEngines(
        Runs.settings(
            TIMERS,
            "io-uring.threads = 2",
            "cpu.count = 2",
            "io-uring.depth = 64",
            "io-uring.batch-submit = 16",
            "io-uring.batch-complete = 16"));
  }

  @Test
  void freesInQueueRqShouldRestartTheQueueForRequestsThatWaitedForADriverTag() {
    // three threads' batches of 32 pull 96 requests out at once for 64 driver tags; each request
    // ends in queue_rq (irqmode=0), and the free restarts the queue on kblockd of the freeing CPU
    String three =
        ONE_QUEUE
            + "blksim.io-uring.threads = 3\nblksim.cpu.count = 3\nblksim.null-blk.irqmode = 0\n";
    RunResult r = Runs.sequential(three);
    assertTrue(r.books().balanced(), r.books().violations().toString());
    RunResult.Sched s = r.hctxs().get(0).sched();
    assertTrue(s.waited() > 0 && s.restarts() > 0, s.toString());
    assertTrue(r.workers().isEmpty(), "96 requests fit the 128 sched tags");
    for (RunResult.Submitter sub : r.submitters()) {
      assertEquals(sub.accepted(), sub.completed(), "each ring completes its own, no other");
    }
    long kworker = 0;
    for (int cpu = 0; cpu < 3; cpu++) {
      kworker += r.ledger().time(cpu, CpuTime.KWORKER);
    }
    assertTrue(kworker > 0, "kblockd's runs");
    Runs.sameOnBothEngines(Runs.settings(three));
  }

  @Test
  void oneThreadsRunShouldTakeTheTagsItsOwnEndsFreeNotWait() {
    // 32 requests a run on 4 driver tags, ended in queue_rq: blk_mq_dispatch_rq_list hands the
    // first 4 to the driver, whose ends free the tags the fifth's second try takes, and so on
    RunResult r = run("null-blk.hw-queue-depth = 4", "null-blk.irqmode = 0");
    RunResult.Hctx h = r.hctxs().get(0);
    assertEquals(0, h.sched().waited(), "no request waits on hctx->dispatch");
    assertEquals(0, h.sched().restarts());
    assertTrue(
        calls(r, "blk_mq_get_driver_tag") > calls(r, "dd_dispatch_request"),
        "the fifth request of a run tries twice");
  }

  @Test
  void nrRequestsShouldSetTheTagsRequestsComeFrom() {
    RunResult grown = run("queue.nr-requests = 256");
    assertEquals(256, grown.hctxs().get(0).nrTags(), "sched tags grow to 256");
    RunResult small = run("queue.nr-requests = 2");
    assertEquals(4, small.hctxs().get(0).nrTags(), "BLKDEV_MIN_RQ");
    RunResult none = run("null-blk.no-sched = true", "queue.nr-requests = 16");
    assertEquals(16, none.hctxs().get(0).nrTags(), "the tag set's sbitmap shrunk to 16");
    assertTrue(
        Runs.refused(ONE_QUEUE, "null-blk.no-sched = true", "queue.nr-requests = 65")
            .getMessage()
            .contains("EINVAL"));
    assertTrue(Runs.refused(ONE_QUEUE, "queue.nr-requests = 2049").getMessage().contains("2048"));
  }

  @Test
  void aShrunkMapShouldKeepItsWords() {
    // 128 sched tags make 32-bit words: shrunk to 32 the map is one such word, and the plug's
    // batch of 32 (5.16) fits it; a map made for 32 would have 8-bit words and never fit it
    RunResult r = run("queue.nr-requests = 32", "kernel.preset = \"5.16\"");
    assertEquals(0, r.ledger().steps(0).get("__sbitmap_queue_get").calls(), "no tag one by one");
  }

  @Test
  void bothEnginesShouldAgree() {
    Runs.sameOnBothEngines(
        Runs.settings(
            ONE_QUEUE, "io-uring.threads = 2", "cpu.count = 2", "kernel.preset=\"5.16\""));
  }
}

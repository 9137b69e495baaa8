package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A ring without IOPOLL on a machine with no CPU left for its io-wq worker: the worker runs on its
 * submitter's CPU, where the thread schedules or while it sleeps, and gives the CPU back each time
 * it sleeps for a tag or runs out of work.
 */
class SharedWorkerTest {

  /** -d128 -p0 on 8 tags whose timers (irqmode=2, 10 us) keep them: most bios find no tag. */
  private static final String SHORT_OF_TAGS =
      "blksim.io-uring { depth = 128, batch-submit = 32, batch-complete = 32, block-size = 512,"
          + " polled = false }\n"
          + "blksim.null-blk { irqmode = 2, hw-queue-depth = 8 }\n"
          + "blksim.run.runtime = 5ms";

  @Test
  void aWorkerWithNoCpuLeftShouldShareItsThreadsCpu() {
    RunResult shared = Runs.sequential(SHORT_OF_TAGS, "cpu.count=1");
    assertTrue(shared.books().balanced(), shared.books().violations().toString());
    RunResult.Worker w = shared.workers().get(0);
    assertEquals(0, w.cpu(), "the worker runs on the thread's CPU");
    assertTrue(shared.sharesCpu(w));
    assertEquals(shared.hctxs().get(0).noTag(), w.punted(), "every -EAGAIN one punt");
    assertTrue(w.tagSleeps() > 0, "its blocking issue slept for tags");
    assertEquals(
        w.punted(),
        shared.ledger().steps(0).get("io_wq_submit_work").calls(),
        "the worker's issues charged to the thread's CPU");
    assertTrue(
        shared.ledger().totalPs(0) <= shared.endPs(),
        "the thread and the worker never ran at once: the CPU's time fits in the run");
    assertEquals(java.util.List.of(0), shared.busyCpus(), "one CPU, counted once");

    // with a CPU of its own the worker runs beside the thread: the shared CPU does both
    RunResult own = Runs.sequential(SHORT_OF_TAGS, "cpu.count=2");
    assertEquals(1, own.workers().get(0).cpu());
    assertTrue(
        shared.done() < own.done(),
        "sharing costs reads: " + shared.done() + " vs " + own.done() + " with its own CPU");
  }

  @Test
  void requestsTheWorkerEndsInQueueRqShouldWakeTheThreadOnlyOnceItHasTheCpuBack() {
    // irqmode=1: the worker's requests end in its queue_rq and queue the thread's task_work while
    // the worker has the CPU; a batch of 32 on 16 tags makes punts every pass
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SHORT_OF_TAGS,
                "cpu.count=1",
                "null-blk.irqmode=1",
                "null-blk.hw-queue-depth=16",
                "io-uring.depth=64",
                "run.runtime=1ms"));
    RunResult.Worker w = res.workers().get(0);
    assertTrue(w.punted() > 0 && w.wakeUps() > 1, "woken for punts again and again: " + w);
    assertEquals(0, w.tagSleeps(), "tags free in queue_rq: the issue never sleeps");
    assertTrue(res.ledger().totalPs(0) <= res.endPs());
  }

  @Test
  void bothEnginesShouldAgreeWithTwoThreadsEachSharingWithItsWorker() {
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SHORT_OF_TAGS,
                "cpu.count=2",
                "io-uring.threads=2",
                "null-blk.hw-queue-depth=4",
                "run.runtime=1ms"));
    assertEquals(2, res.workers().size());
    for (RunResult.Worker w : res.workers()) {
      assertTrue(res.sharesCpu(w), "no CPU left: " + w);
      assertTrue(res.ledger().totalPs(w.cpu()) <= res.endPs());
    }
  }
}

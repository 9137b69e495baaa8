package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.time.VirtualTime;
import org.junit.jupiter.api.Test;

/**
 * An IOPOLL ring's io-wq worker with no CPU left: on its thread's CPU its REQ_NOWAIT issue retries
 * -EAGAIN until the tick ends its CFS slice, and only the thread, polling in its own slice, frees
 * tags.
 */
class SpinningWorkerTest {
  private static final long MS = VirtualTime.ps(1_000_000);

  /** -d128 -p1 on 8 tags of one poll queue, without ticks or variation: the tick's phase is 0. */
  private static final String SHORT_OF_TAGS =
      "blksim.io-uring { depth = 128, batch-submit = 32, batch-complete = 32, block-size = 512,"
          + " polled = true }\n"
          + "blksim.null-blk { hw-queue-depth = 8, poll-queues = 1 }\n"
          + "blksim.interference { enabled = false, tick.hz = 1000 }\n"
          + "blksim.run.runtime = 40ms";

  @Test
  void aWorkerOnItsThreadsCpuShouldSpinUntilTheTickEndsItsSlice() {
    RunResult res = Runs.sameOnBothEngines(Runs.settings(SHORT_OF_TAGS, "cpu.count=1"));
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Worker w = res.workers().get(0);
    assertTrue(res.sharesCpu(w), "no CPU left: " + w);
    assertTrue(w.spinSlices() >= 3, "slices spun in 40 ms: " + w);
    // one CPU: a 3 ms slice, ended by the first tick (every 1 ms from 0) past it, from the pick
    long perSlice = w.spunPs() / w.spinSlices();
    assertTrue(perSlice <= 4 * MS, "a spin ends at its slice's tick: " + perSlice + " ps");
    assertTrue(perSlice >= 2 * MS, "and spins most of its slice: " + perSlice + " ps");
    assertTrue(
        res.ledger().steps(0).get("__cond_resched").calls() > 100 * w.retries(),
        "each spin's turns charged: " + res.ledger().steps(0).get("__cond_resched").calls());
    assertTrue(
        res.ledger().totalPs(0) <= res.endPs(),
        "the worker and the thread never overlap: "
            + res.ledger().totalPs(0)
            + " > "
            + res.endPs());
    // a request punted waits at least for the thread's slice before the worker issues it
    assertTrue(
        res.latencyNs().getMaxValue() >= 3_000_000,
        "max latency " + res.latencyNs().getMaxValue() + " ns");

    RunResult own = Runs.sequential(SHORT_OF_TAGS, "cpu.count=2");
    assertEquals(0, own.workers().get(0).spinSlices(), "with a CPU of its own it never spins");
    assertTrue(
        res.done() * 3 < own.done() * 2,
        "spinning halves the thread's CPU: " + res.done() + " vs " + own.done());
  }

  @Test
  void aWorkerOfAThreadThatReadsADmDeviceTooShouldSpinForItsRawQueuesTagsAsAnother() {
    // the thread reads dm-0 (on nullb1) and nullb0 raw, 128 deep on 8 tags: the worker spins for
    // a tag of nullb0 on the thread's CPU while the DM device's clones end in their polls
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SHORT_OF_TAGS,
                "cpu.count=1",
                "null-blk.nr-devices=2",
                "io-uring.files=[\"/dev/dm-0\", \"/dev/nullb0\"]",
                "dm.tables=[\"0 524288000 linear /dev/nullb1 0\"]",
                "kernel.preset=\"5.18\""));
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Worker w = res.workers().get(0);
    assertTrue(res.sharesCpu(w), "no CPU left: " + w);
    assertTrue(w.spinSlices() >= 1, "it spun until the tick ended its slice: " + w);
    assertTrue(res.dms().get(0).dmIos() > 0, "the DM device read beside it");
    assertTrue(
        res.ledger().totalPs(0) <= res.endPs(),
        "the worker and the thread never overlap: "
            + res.ledger().totalPs(0)
            + " > "
            + res.endPs());
  }

  @Test
  void theSliceShouldGrowWithTheMachinesCpus() {
    // two threads, each on its own poll queue, each sharing with its worker: 2 CPUs give 6 ms
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SHORT_OF_TAGS, "cpu.count=2", "io-uring.threads=2", "null-blk.poll-queues=2"));
    for (RunResult.Worker w : res.workers()) {
      assertTrue(res.sharesCpu(w), w.toString());
      assertTrue(w.spinSlices() >= 2, w.toString());
      long perSlice = w.spunPs() / w.spinSlices();
      assertTrue(perSlice > 4 * MS && perSlice <= 7 * MS, "6 ms slices: " + perSlice + " ps");
      assertTrue(res.ledger().totalPs(w.cpu()) <= res.endPs());
    }
  }

  @Test
  void anotherThreadsPollingOfTheSameQueueShouldEndASpinWithTheTagItFrees() {
    // two threads on one poll queue, one CPU left: thread 0's worker gets it, thread 1's shares
    // cpu1. Thread 0 polls while thread 1's worker spins, and its polling reaps thread 1's
    // requests too, freeing their tags.
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SHORT_OF_TAGS, "cpu.count=3", "io-uring.threads=2", "null-blk.poll-queues=1"));
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Worker own = res.workers().get(0);
    RunResult.Worker shared = res.workers().get(1);
    assertEquals(2, own.cpu(), "the free CPU goes to the first thread's worker");
    assertTrue(res.sharesCpu(shared), shared.toString());
    assertEquals(0, own.spinSlices() + own.spinsEndedByTag(), "a worker of its own never spins");
    assertTrue(shared.spinsEndedByTag() > 0, "a tag the other CPU freed ended spins: " + shared);
    assertTrue(res.ledger().totalPs(1) <= res.endPs());
  }

  @Test
  void afterTheThreadExitsTheWorkerShouldLetTheTeardownPollAtOnce() {
    // -d256 on 4 tags: at the end most requests wait at the worker, a few tags at a time
    RunResult res =
        Runs.sequential(
            SHORT_OF_TAGS,
            "cpu.count=1",
            "io-uring.depth=256",
            "null-blk.hw-queue-depth=4",
            "run.runtime=10ms");
    assertTrue(res.books().balanced(), res.books().violations().toString());
    // the thread ends after the last pass it began, at most a slice and a tick after 10 ms
    assertTrue(
        res.endPs() < 14 * MS, "no slice spun after the exit: the run ends at " + res.endPs());
  }

  @Test
  void anInterruptOnItsCpuShouldCutTheSpinAtItsNextCondReschedAndFreeItsTag() {
    // no poll queue: the requests end in null_blk's timers on this CPU (irqmode=2), whose
    // interrupts free the tags the worker spins for; each comes at the spin's next cond_resched
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SHORT_OF_TAGS,
                "cpu.count=1",
                "null-blk.poll-queues=0",
                "null-blk.irqmode=2",
                "null-blk.completion-nsec=20000",
                "queue.scheduler=\"none\"",
                "run.runtime=10ms"));
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Worker w = res.workers().get(0);
    assertTrue(res.sharesCpu(w), "no CPU left: " + w);
    assertTrue(w.retries() > 100, "it found no tag and spun, again and again: " + w);
    assertEquals(0, w.spinSlices(), "an interrupt ends each spin long before its slice: " + w);
    assertTrue(w.spinsEndedByTag() > 0, "the tags they freed ended spins: " + w);
    assertTrue(w.spunPs() < res.endPs() / 2, "it spun a part of the run: " + w);
    assertTrue(res.ledger().totalPs(0) <= res.endPs());
  }
}

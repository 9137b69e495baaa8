package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * irqmode=1 on a tag set of one hardware queue: queue_rq puts each request on its CPU's
 * blk_cpu_done and raises BLOCK_SOFTIRQ, which wakes ksoftirqd; ksoftirqd ends the requests where
 * the thread next schedules: at io_iopoll_check's mutex_lock, in io_cqring_wait's sleep, or where a
 * sync read sleeps.
 */
class BlockSoftirqTest {
  private static final String ONE_QUEUE =
      Runs.D32
          + "blksim.run.runtime = 1ms\n"
          + "blksim.null-blk { submit-queues = 1, poll-queues = 0, no-sched = true }\n";

  private static RunResult run(String... sets) {
    RunResult r = Runs.sequential(ONE_QUEUE, sets);
    assertTrue(r.books().balanced(), r.books().violations().toString());
    return r;
  }

  private static long calls(RunResult r, int cpu, String fn) {
    Map<String, CostLedger.Entry> steps = r.ledger().steps(cpu);
    return steps.containsKey(fn) ? steps.get(fn).calls() : 0;
  }

  private static long calls(RunResult r, String fn) {
    return calls(r, 0, fn);
  }

  @Test
  void anIopollRingShouldLetKsoftirqdRunOnceABatchBeforeItPolls() {
    RunResult r = run("io-uring.polled = true");
    long ios = r.hctxs().get(0).dispatched();
    long calls = r.calls();
    assertEquals(ios, calls(r, "blk_mq_raise_softirq"), "each request onto blk_cpu_done");
    assertEquals(ios, calls(r, "null_complete_rq"), "each one's ->complete from the softirq");
    assertEquals(0, calls(r, "blk_mq_complete_request") - ios, "the raise is its remote branch");
    long runs = calls(r, "run_ksoftirqd");
    assertEquals(calls, runs, "one wake of ksoftirqd a submission of 32");
    assertEquals(runs, calls(r, "raise_softirq"), "the first request on an empty list raises it");
    assertEquals(2 * runs, calls(r, "__schedule"), "to ksoftirqd at the mutex_lock, and back");
    assertEquals(32 * calls, r.reaps(), "the poll after it finds all 32: no call goes empty");
    assertTrue(r.ledger().time(0, CpuTime.KSOFTIRQD) > 0);
    assertEquals(
        calls(r, "tick_sched_timer"),
        calls(r, "hrtimer_interrupt"),
        "no hard interrupt ends them: each is the tick's");
  }

  @Test
  void aSleepingRingShouldBeWokenByKsoftirqdAndReapAtOnce() {
    RunResult r = run("io-uring.polled = false");
    long calls = r.calls();
    assertEquals(calls, calls(r, "run_ksoftirqd"), "the thread sleeps in io_cqring_wait once");
    assertEquals(calls, calls(r, "try_to_wake_up") - calls, "ksoftirqd's wake, and the thread's");
    assertEquals(2 * calls, calls(r, "__schedule"), "to sleep, and back in when woken");
    assertEquals(32 * calls, r.reaps(), "each call reaps its own 32");
  }

  @Test
  void aSyncReadShouldSleepUntilKsoftirqdEndsIt() {
    RunResult r = run("io-uring.sync-io = true", "io-uring.polled = false");
    long reads = r.done();
    assertTrue(reads > 0);
    assertEquals(reads, calls(r, "run_ksoftirqd"), "blk_io_schedule, then ksoftirqd");
    assertEquals(2 * reads, calls(r, "__schedule"), "two switches a read");
  }

  @Test
  void thePreemptedReturnShouldRunTheTaskWorkBeforeUserSpace() {
    // -d64 -s32: to_wait 0, the syscall returns with TIF_NEED_RESCHED; ksoftirqd ends the batch
    // and exit_to_user_mode runs its task_work before t/io_uring reaps
    RunResult r = run("io-uring.polled = false", "io-uring.depth = 64");
    assertTrue(r.calls() > 0);
    assertEquals(2 * calls(r, "run_ksoftirqd"), calls(r, "__schedule"), "preempted, then back");
    assertEquals(r.done(), r.reaps() + r.submitters().get(0).droppedAtExit());
    assertTrue(
        r.submitters().get(0).latencyNs().getMaxValue() < 50_000,
        "reaped in the call's own return, not the next one's");
  }

  @Test
  void severalQueuesOrIrqmode0ShouldEndInQueueRq() {
    RunResult two = run("null-blk.poll-queues = 1", "io-uring.polled = false");
    assertEquals(0, calls(two, "run_ksoftirqd"), "nr_hw_queues 2: completed locally");
    RunResult none = run("null-blk.irqmode = 0", "io-uring.polled = false");
    assertEquals(0, calls(none, "run_ksoftirqd"), "end_cmd in queue_rq");
    assertEquals(0, calls(none, "blk_mq_raise_softirq"));
  }

  @Test
  void ksoftirqdFreesShouldRestartRequestsThatWaitedForADriverTag() {
    // four threads' batches of 32 on 64 driver tags, under mq-deadline: what waits on
    // hctx->dispatch is restarted by kblockd after a ksoftirqd frees tags
    String four =
        ONE_QUEUE
            + "blksim.null-blk.no-sched = false\n"
            + "blksim.io-uring { threads = 4, polled = false }\nblksim.cpu.count = 4\n";
    RunResult r = Runs.sameOnBothEngines(Runs.settings(four));
    RunResult.Sched s = r.hctxs().get(0).sched();
    assertTrue(s.waited() > 0 && s.restarts() > 0, s.toString());
    for (RunResult.Submitter sub : r.submitters()) {
      assertEquals(sub.accepted(), sub.completed(), "each ring completes its own, no other");
    }
  }

  @Test
  void bothEnginesShouldAgree() {
    Runs.sameOnBothEngines(Runs.settings(ONE_QUEUE, "io-uring.polled = true"));
    Runs.sameOnBothEngines(
        Runs.settings(ONE_QUEUE, "io-uring.threads = 2", "cpu.count = 2", "io-uring.depth = 128"));
  }
}

package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.ConfigError;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code t/io_uring -a1}: io_submit of each batch, io_getevents of {@code to_wait}; each iocb an
 * aio_kiocb and a bio from the mempool, its event in the ring when its request ends in queue_rq.
 */
class AioTest {

  private static final String AIO =
      Runs.D32
          + "blksim.io-uring.aio = true\nblksim.interference.enabled = false\n"
          + "blksim.run.runtime = 1ms\n";

  @Test
  void eachBatchShouldBeOneIoSubmitAndOneIoGeteventsWithEveryBioFromTheMempool() {
    RunResult res = Runs.sequential(AIO);
    assertTrue(res.books().balanced(), res.books().violations().toString());
    Map<String, CostLedger.Entry> steps = res.ledger().steps(0);
    long submitted = res.submitters().get(0).accepted();
    assertEquals(submitted, steps.get("io_submit_one").calls(), "one aio_kiocb per iocb");
    assertEquals(submitted, steps.get("aio_complete_rw").calls(), "each read posts an event");
    assertEquals(submitted, steps.get("__fget_files").calls(), "aio has no registered files");
    long submits = steps.get("io_submit").calls();
    assertEquals(submits, steps.get("io_getevents").calls(), "-d32 -s32 -c32: a wait per batch");
    assertEquals(submits + steps.get("io_getevents").calls(), res.calls());
    assertEquals(32, res.reaps() / steps.get("io_getevents").calls());
    assertEquals(submitted, res.bioCache().mempoolAllocs(), "no IOCB_ALLOC_CACHE: the mempool");
    assertEquals(0, res.bioCache().cacheHits());
    assertFalse(steps.containsKey("io_uring_enter"));
    assertEquals(0, res.ledger().time(0, CpuTime.POLL), "aio never polls");
    assertEquals(res.done(), res.reaps(), "t/io_uring counts an aio read done when reaped");
    // RCU sections: the block layer's (two at the queue's enter, one at its exit, hctx_lock's at
    // each issue), one for each ctx->reqs get and put, three a syscall (lookup_ioctx's, the
    // ctx->users tryget's inside it, the put's)
    long block =
        2 * steps.get("bio_queue_enter").calls()
            + steps.get("blk_queue_exit").calls()
            + steps.get("null_queue_rq").calls();
    long aio =
        steps.get("io_submit_one").calls()
            + steps.get("aio_complete_rw").calls()
            + 3 * (submits + steps.get("io_getevents").calls());
    assertEquals(block + aio, steps.get("__rcu_read_lock").calls());
    assertEquals(block + aio, steps.get("__rcu_read_unlock").calls());
  }

  @Test
  void waitingForMoreEventsThanAreInFlightShouldHangInIoGetevents() {
    // -d3 -s2 -c3: to_wait counts the batch twice, 3 events wanted of 2
    RunResult res =
        Runs.sequential(
            AIO, "io-uring.depth=3", "io-uring.batch-submit=2", "io-uring.batch-complete=3");
    assertTrue(res.books().balanced(), res.books().violations().toString());
    String fatal = res.submitters().get(0).fatal().get(0);
    assertTrue(fatal.startsWith("hangs in io_getevents: min_nr=3 with 2 events"), fatal);
    assertEquals(2, res.calls(), "s->calls++ before the io_getevents that never returns");
  }

  @Test
  void aSleepForATagWhoseFlushEndsRequestsShouldBeRefusedByName() {
    ConfigError tags = Runs.refused(AIO, "null-blk.hw-queue-depth=16");
    assertTrue(tags.getMessage().contains("32 requests at once"), tags.getMessage());
    assertTrue(
        tags.getMessage().contains("io_submit sleeping for a tag while its requests end in"),
        tags.getMessage());
  }

  @Test
  void ioSubmitShouldFlushItsPlugAndSleepForATagUntilATimerFreesOne() {
    // a batch of 32 on 16 tags: the 17th bio finds none, schedule() flushes the 16 before it,
    // and every wake_batch (16 / 8 = 2) frees of their timers wake the task to try again
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                AIO,
                "null-blk.irqmode=2",
                "null-blk.completion-nsec=10000",
                "null-blk.hw-queue-depth=16"));
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Hctx h = res.hctxs().get(0);
    Map<String, CostLedger.Entry> steps = res.ledger().steps(0);
    assertTrue(h.tagWaits() > 0, "io_submit slept for tags");
    assertEquals(0, h.noTag(), "no REQ_NOWAIT: nothing ends with -EAGAIN");
    assertEquals(h.tagWaits(), steps.get("sbitmap_prepare_to_wait").calls(), "one per sleep");
    assertEquals(16, h.maxInUse(), "the 16 tags, never more");
    assertEquals(res.submitters().get(0).accepted(), h.dispatched(), "every bio got its request");
    long submits = steps.get("io_submit").calls();
    assertTrue(h.tagWaits() >= submits, "each batch of 32 sleeps at least once on 16 tags");
    assertTrue(res.ledger().time(0, CpuTime.IRQ) > 0, "the timers end the requests");
  }

  @Test
  void eventsByTimerShouldWakeIoGeteventsFromItsSleep() {
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(AIO, "null-blk.irqmode=2", "null-blk.completion-nsec=10000"));
    Map<String, CostLedger.Entry> steps = res.ledger().steps(0);
    long getevents = steps.get("io_getevents").calls();
    assertEquals(2 * getevents, steps.get("__schedule").calls(), "each wait sleeps and wakes once");
    assertEquals(getevents, steps.get("try_to_wake_up").calls(), "one interrupt ends the batch");
    assertTrue(res.ledger().time(0, CpuTime.IRQ) > 0, "aio_complete runs in the interrupt");
    assertEquals(res.submitters().get(0).accepted(), steps.get("aio_complete_rw").calls());
  }

  @Test
  void twoThreadsShouldSleepOnOneQueuesTagsAndEachWakeFollowItsSleep() {
    // -d128 on 8 tags: a tag another CPU frees while a task flushes its plug counts for it (it is
    // on the wait queue already), and its Woken comes no earlier than its Slept (a Woken that
    // overtook it broke the thread's loop: "an answer to TAG_SLEEP while ... in SUBMIT_BIOS")
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                AIO,
                "io-uring.depth=128",
                "io-uring.threads=2",
                "cpu.count=2",
                "null-blk.irqmode=2",
                "null-blk.hw-queue-depth=8"));
    assertTrue(res.books().balanced(), res.books().violations().toString());
    assertTrue(res.hctxs().get(0).tagWaits() > 0, "the threads slept for tags");
    assertEquals(8, res.hctxs().get(0).maxInUse());
    assertTrue(res.submitters().stream().allMatch(s -> s.done() > 0), "both threads read");
  }

  @Test
  void syncShouldWinOverAioAsInTIoUring() {
    RunResult res = Runs.sequential(AIO, "io-uring.sync-io=true");
    assertTrue(res.ledger().steps(0).containsKey("__blkdev_direct_IO_simple"));
    assertFalse(res.ledger().steps(0).containsKey("io_submit"));
  }

  @Test
  void bothEnginesShouldAgreeOnAio() {
    RunResult seq =
        Runs.sameOnBothEngines(
            Runs.settings(AIO, "io-uring.threads=2", "cpu.count=2", "run.runtime=300us"));
    assertEquals(2, seq.submitters().size());
  }
}

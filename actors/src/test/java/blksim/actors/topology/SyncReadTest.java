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
 * {@code t/io_uring -S1}: one preadv2 at a time, its bio on the stack ({@code
 * __blkdev_direct_IO_simple}); with {@code -p1} (RWF_HIPRI) the task polls its own bio.
 */
class SyncReadTest {

  private static final String SYNC =
      "blksim.io-uring { sync-io = true, block-size = 512 }\n"
          + "blksim.interference.enabled = false\nblksim.run.runtime = 1ms\n";

  @Test
  void aPolledSyncReadShouldPollItsOwnBioOncePerRead() {
    RunResult res = Runs.sequential(SYNC);
    assertTrue(res.books().balanced(), res.books().violations().toString());
    assertEquals(res.done(), res.calls(), "one preadv2 per read");
    assertEquals(0, res.reaps(), "no CQE: IOS/call=1/0");
    Map<String, CostLedger.Entry> steps = res.ledger().steps(0);
    assertEquals(res.done(), steps.get("entry_SYSCALL_64").calls(), "a syscall per read");
    assertEquals(res.done(), steps.get("__blkdev_direct_IO_simple").calls());
    assertEquals(res.done(), steps.get("bio_poll").calls(), "the first poll finds the bio");
    assertEquals(res.done(), steps.get("get_user_pages_fast").calls(), "user pages, pinned");
    for (String ring : new String[] {"io_uring_enter", "io_submit_sqes", "bio_alloc_kiocb"}) {
      assertFalse(steps.containsKey(ring), ring + " is not run by preadv2");
    }
    RunResult.Hctx poll =
        res.hctxs().stream().filter(h -> h.dispatched() > 0).findFirst().orElseThrow();
    assertEquals(1, poll.maxInUse(), "one read in flight");
    assertEquals(0, res.bioCache().cacheHits() + res.bioCache().mempoolAllocs(), "bio on stack");
    assertTrue(res.ledger().time(0, CpuTime.POLL) > 0);
  }

  @Test
  void anUnpolledSyncReadShouldEndInQueueRqWithoutAPoll() {
    RunResult res = Runs.sequential(SYNC, "io-uring.polled=false");
    assertTrue(res.books().balanced(), res.books().violations().toString());
    assertFalse(res.ledger().steps(0).containsKey("bio_poll"));
    assertEquals(0, res.ledger().time(0, CpuTime.POLL));
    assertEquals(res.done(), res.ledger().steps(0).get("blkdev_bio_end_io_simple").calls());
  }

  @Test
  void aReadEndedByItsTimerShouldSleepInBlkIoScheduleUntilTheInterruptWakesIt() {
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SYNC,
                "io-uring.polled=false",
                "null-blk.irqmode=2",
                "null-blk.completion-nsec=10000"));
    Map<String, CostLedger.Entry> steps = res.ledger().steps(0);
    assertEquals(2 * res.done(), steps.get("__schedule").calls(), "out and back in, per read");
    assertEquals(res.done(), steps.get("try_to_wake_up").calls(), "the interrupt wakes the task");
    assertEquals(res.done(), steps.get("blkdev_bio_end_io_simple").calls());
    assertTrue(res.ledger().time(0, CpuTime.IRQ) > 0, "its end_io runs in the interrupt");
    assertTrue(res.latencyNs().getMinValue() > 10_000, "each read waits out its timer");
  }

  @Test
  void aSyncPollShouldPassNoBatchSoNullPollEndsItsRequestAlone() {
    // bio_poll(&bio, NULL, 0): blk_mq_add_to_batch refuses without an io_comp_batch (5.17)
    RunResult res = Runs.sequential(SYNC, "kernel.preset=\"5.17\"");
    Map<String, CostLedger.Entry> steps = res.ledger().steps(0);
    assertFalse(steps.containsKey("blk_mq_end_request_batch"), steps.keySet().toString());
    assertEquals(res.done(), steps.get("blk_mq_end_request").calls());
  }

  @Test
  void aHipriReadOnAQueueThatCannotPollShouldSleepForItsTimer() {
    // poll_queues=0: submit_bio_noacct clears REQ_POLLED, the task sleeps; no IOPOLL ring spins
    RunResult res = Runs.sequential(SYNC, "null-blk.poll-queues=0", "null-blk.irqmode=2");
    assertTrue(res.books().balanced(), res.books().violations().toString());
    assertEquals(2 * res.done(), res.ledger().steps(0).get("__schedule").calls());
  }

  @Test
  void twoThreadsOnOnePollQueueShouldEndEachOthersReadsAndWakeTheOwner() {
    // null_poll splices the whole poll list: one thread's poll can end the other's bio, whose
    // task then sleeps in blk_io_schedule (its own poll found nothing) until that end_io wakes it
    RunResult res =
        Runs.sameOnBothEngines(Runs.settings(SYNC, "io-uring.threads=2", "cpu.count=2"));
    Map<String, CostLedger.Entry> cpu0 = res.ledger().steps(0);
    Map<String, CostLedger.Entry> cpu1 = res.ledger().steps(1);
    long wakes = cpu0.get("try_to_wake_up").calls() + cpu1.get("try_to_wake_up").calls();
    long ends =
        cpu0.get("blkdev_bio_end_io_simple").calls() + cpu1.get("blkdev_bio_end_io_simple").calls();
    assertTrue(wakes > 0, "some reads were ended by the other thread's poll");
    assertEquals(res.done(), ends, "each read ended once, by one of the two polls");
    assertTrue(res.submitters().stream().allMatch(s -> s.done() > 0));
  }

  @Test
  void thePerCpuBioCacheShouldNotMatterToABioOnTheStack() {
    RunResult on = Runs.sequential(SYNC, "bioset.percpu-cache=true");
    RunResult off = Runs.sequential(SYNC, "bioset.percpu-cache=false");
    assertEquals(on.done(), off.done());
    assertEquals(on.endPs(), off.endPs());
  }

  @Test
  void moreThreadsThanTagsShouldSleepInBlkMqGetTagUntilAnotherReadFreesOne() {
    // two threads, one tag: a read without REQ_NOWAIT that finds the other's tag taken sleeps on
    // the tag wait queue, and the other's blk_mq_end_request wakes it
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SYNC,
                "io-uring.polled=false",
                "io-uring.threads=2",
                "cpu.count=2",
                "null-blk.submit-queues=1",
                "null-blk.hw-queue-depth=1",
                "run.runtime=200us"));
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Hctx h = res.hctxs().get(0);
    assertTrue(h.tagWaits() > 0, "the threads slept for the tag");
    assertEquals(0, h.noTag(), "no REQ_NOWAIT: no -EAGAIN");
    assertEquals(1, h.maxInUse());
    long prepares = 0;
    for (int cpu = 0; cpu < 2; cpu++) {
      CostLedger.Entry e = res.ledger().steps(cpu).get("sbitmap_prepare_to_wait");
      prepares += e == null ? 0 : e.calls();
    }
    assertEquals(h.tagWaits(), prepares, "one sbitmap_prepare_to_wait a sleep");
    assertTrue(res.submitters().stream().allMatch(s -> s.done() > 0), "both threads read");
  }

  @Test
  void syncReadsThatWouldSleepShouldBeRefusedByName() {
    // mq-deadline with 4 sched tags for 5 threads: a read would sleep for a sched tag
    ConfigError tags =
        Runs.refused(
            SYNC,
            "io-uring.polled=false",
            "io-uring.threads=5",
            "cpu.count=5",
            "null-blk.submit-queues=1",
            "null-blk.poll-queues=0",
            "null-blk.hw-queue-depth=8",
            "null-blk.irqmode=2",
            "queue.scheduler=mq-deadline",
            "queue.nr-requests=4");
    assertTrue(
        tags.getMessage().contains("sleeping for a tag under mq-deadline"), tags.getMessage());
    ConfigError buffered = Runs.refused(SYNC, "io-uring.o-direct=false");
    assertTrue(buffered.getMessage().contains("page cache"), buffered.getMessage());
  }

  @Test
  void twoThreadsOnTheirOwnPollQueuesShouldRunOnBothEnginesAlike() {
    RunResult seq =
        Runs.sameOnBothEngines(
            Runs.settings(
                SYNC,
                "io-uring.threads=2",
                "cpu.count=2",
                "null-blk.poll-queues=2",
                "run.runtime=200us"));
    assertEquals(2, seq.submitters().size());
    assertTrue(seq.submitters().stream().allMatch(s -> s.done() > 0));
  }
}

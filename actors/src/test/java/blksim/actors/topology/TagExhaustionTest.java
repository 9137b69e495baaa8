package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.engine.SequentialEngine;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.queues.cost.CpuTime;
import org.junit.jupiter.api.Test;

/**
 * -d128 on null_blk's 64 tags: the bios that find no tag end with -EAGAIN, their requests go to the
 * io-wq worker, which retries each until it gets a tag and then waits for the ring's uring_lock.
 */
class TagExhaustionTest {

  private static BlksimSettings run(String... sets) {
    return Runs.settings(
        "blksim.io-uring { depth = 128, batch-submit = 32, batch-complete = 32,"
            + " block-size = 512 }\nblksim.run.runtime = 5ms",
        sets);
  }

  @Test
  void biosWithoutATagShouldBeRetriedByTheWorkerAndNothingLost() {
    TopologyTest.Recorder r = new TopologyTest.Recorder();
    RunResult res = Topology.build(run(), r).run(new SequentialEngine());
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Hctx hctx = res.hctxs().get(0);
    assertEquals(64, hctx.maxInUse(), "all 64 tags get used");
    assertTrue(hctx.noTag() > 0, "some bios found no tag");
    assertEquals(1, res.workers().size());
    RunResult.Worker w = res.workers().get(0);
    assertEquals(1, w.cpu(), "the worker runs on the CPU without a submitter");
    assertTrue(w.punted() > 0, "requests were punted to io-wq");
    assertEquals(
        hctx.noTag(),
        w.punted() + w.retries(),
        "every bio without a tag is one punt by the thread or one retry by the worker");
    assertTrue(res.ledger().time(1, CpuTime.LOCK_WAIT) > 0, "the worker spins on uring_lock");
    assertTrue(
        res.ledger().steps(0).get("io_queue_async_work").calls() == w.punted(),
        "each punt is charged to the submitter");
    assertEquals(res.done(), res.submitters().get(0).completed(), "every I/O completed once");
  }

  @Test
  void bothEnginesShouldAgreeOnTheRetries() {
    RunResult seq = Runs.sameOnBothEngines(run("run.runtime=2ms"));
    assertTrue(seq.workers().get(0).retries() > 0, "the worker retried, on both engines alike");
  }

  @Test
  void interruptCompletionInQueueRqShouldFreeTagsSoTheyNeverRunOut() {
    // t/io_uring -p0 at -d128 on the default null_blk (irqmode=1, two hardware queues): each
    // request ends in its queue_rq, so a plug of -s32 holds 32 tags and gives them back
    RunResult res =
        Topology.build(run("io-uring.polled=false"), new TopologyTest.Recorder())
            .run(new SequentialEngine());
    assertTrue(res.books().balanced(), res.books().violations().toString());
    assertTrue(res.workers().isEmpty(), "no io-wq worker: no bio can find its queue out of tags");
    RunResult.Hctx hctx = res.hctxs().get(0);
    assertEquals(32, hctx.maxInUse(), "one plug's batch at most");
    assertEquals(0, hctx.noTag());
    assertEquals(res.done(), res.submitters().get(0).completed());
  }

  @Test
  void withTimersTheWorkersBlockingIssueShouldSleepOnTheTagWaitQueue() {
    // irqmode=2 keeps each tag until its timer fires (50 us here: a submitter faster than its
    // tags): the thread's REQ_NOWAIT bios that find none go to io-wq, whose blocking issue sleeps
    // in blk_mq_get_tag until freed tags wake it; its requests' timers fire on its CPU
    RunResult res =
        Runs.sequential(
            "blksim.io-uring { depth = 128, batch-submit = 32, batch-complete = 32,"
                + " block-size = 512 }\nblksim.run.runtime = 5ms",
            "io-uring.polled=false",
            "null-blk.irqmode=2",
            "null-blk.completion-nsec=50000");
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Hctx hctx = res.hctxs().get(0);
    assertEquals(64, hctx.maxInUse(), "every tag in use");
    RunResult.Worker w = res.workers().get(0);
    assertEquals(0, w.retries(), "no retries: the worker's issue waits instead");
    assertTrue(w.tagSleeps() > 0, "the worker slept for tags");
    assertEquals(hctx.noTag(), w.punted(), "every -EAGAIN is one punt by the thread");
    assertEquals(hctx.tagWaits(), w.tagSleeps(), "every tag wait one sleep of the worker");
    assertTrue(res.ledger().time(1, CpuTime.IRQ) > 0, "its requests' timers fire on its CPU");
    assertEquals(
        w.tagSleeps(),
        res.ledger().steps(1).get("sbitmap_prepare_to_wait").calls(),
        "a sleep each");
    assertTrue(
        res.ledger().steps(1).get("[lock wait] uring_lock") == null,
        "no IOPOLL list: the worker never takes uring_lock");
    // a fault on such a queue is refused by name
    ConfigError e =
        assertThrows(
            ConfigError.class,
            () ->
                Topology.build(
                    run(
                        "io-uring.polled=false",
                        "null-blk.irqmode=2",
                        "null-blk.requeue=\"1,10,0,-1\""),
                    new TopologyTest.Recorder()));
    assertTrue(e.getMessage().contains("and a fault injected"), e.getMessage());
  }

  @Test
  void bothEnginesShouldAgreeOnTheSleeps() {
    Runs.sameOnBothEngines(
        run(
            "run.runtime=1ms",
            "io-uring.polled=false",
            "null-blk.irqmode=2",
            "null-blk.completion-nsec=50000"));
  }

  @Test
  void enoughTagsShouldNeedNoWorker() {
    RunResult res =
        Topology.build(run("null-blk.hw-queue-depth=128"), new TopologyTest.Recorder())
            .run(new SequentialEngine());
    assertTrue(res.workers().isEmpty());
    assertEquals(0, res.hctxs().get(0).noTag());
  }
}

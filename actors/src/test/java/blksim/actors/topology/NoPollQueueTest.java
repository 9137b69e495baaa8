package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.ConfigError;
import org.junit.jupiter.api.Test;

/**
 * -p1 on a null_blk without poll queues (poll_queues=0): submit_bio_noacct finds no QUEUE_FLAG_POLL
 * and unmarks each bio (bio_clear_polled), which goes to the default queue, ends by null_blk's
 * irqmode and, off the per-CPU cache, is freed to the slab; io_do_iopoll finds the requests done.
 */
class NoPollQueueTest {
  private static final String SEED =
      Runs.D32 + "blksim.run.runtime = 5ms\n" + "blksim.null-blk.poll-queues = 0";

  private static RunResult run(String... sets) {
    return Runs.sequential(SEED, sets);
  }

  @Test
  void polledReadsShouldEndByInterruptOnTheDefaultQueue() {
    RunResult r = run();
    assertTrue(r.books().balanced(), r.books().violations().toString());
    assertEquals(1, r.hctxs().size(), "submit_queues=1 and no poll queue");
    assertEquals("nullb0-hctx0", r.hctxs().get(0).name());
    assertNull(r.ledger().steps(0).get("null_poll"), "nothing to poll");
    long ios = r.reaps();
    assertEquals(ios, r.ledger().steps(0).get("blk_mq_complete_request").calls(), "irqmode=1");
    assertEquals(ios, r.ledger().steps(0).get("bio_alloc_bioset").calls(), "every bio from slab");
    assertEquals(32, r.hctxs().get(0).maxInUse(), "each request ends in its queue_rq");
    RunResult polled = run("null-blk.poll-queues=1");
    assertTrue(r.reaps() < polled.reaps(), "slower than polling: the slab and the IRQ path");
  }

  @Test
  void kernel515sNullBlkShouldHaveNoPollQueues() {
    // 5.15's null_blk has no poll_queues parameter and no ->poll (both came in 5.16)
    RunResult k515 = run("null-blk.poll-queues=1", "kernel.preset=\"5.15\"");
    assertEquals("nullb0-hctx0", k515.hctxs().get(0).name());
    assertEquals(run("kernel.preset=\"5.15\"").reaps(), k515.reaps(), "as with poll_queues=0");
    assertTrue(k515.books().balanced(), k515.books().violations().toString());
  }

  @Test
  void aDmDeviceOnTopShouldBeRefusedByName() {
    // dm_table_supports_poll: a table on devices that cannot poll; DM's requeue of unpolled
    // clones is not modelled
    ConfigError e =
        Runs.refused(
            SEED, "io-uring.files=[\"/dev/dm-0\"]", "dm.tables=[\"0 1024 linear /dev/nullb0 0\"]");
    assertTrue(e.getMessage().contains("poll_queues=0 under a DM device"), e.getMessage());
  }

  @Test
  void bothEnginesShouldAgree() {
    Runs.sameOnBothEngines(Runs.settings(SEED));
  }

  @Test
  void aTimerLongerThanTheSpinBoundShouldBeRefusedByName() {
    ConfigError e = Runs.refused(SEED, "null-blk.irqmode=2", "null-blk.completion-nsec=1000001");
    assertTrue(
        e.getMessage().contains("poll_queues=0 with -p1 and irqmode=2 completion_nsec=1000001"),
        e.getMessage());
  }
}

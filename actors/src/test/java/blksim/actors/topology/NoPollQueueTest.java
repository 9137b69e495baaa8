package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.engine.SequentialEngine;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import org.junit.jupiter.api.Test;

/**
 * -p1 on a null_blk without poll queues (poll_queues=0): submit_bio_noacct finds no QUEUE_FLAG_POLL
 * and unmarks each bio (bio_clear_polled), which goes to the default queue, ends by null_blk's
 * irqmode and, off the per-CPU cache, is freed to the slab; io_do_iopoll finds the requests done.
 */
class NoPollQueueTest {
  private static final String SEED =
      "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = 512 }\n"
          + "blksim.run.runtime = 5ms\n"
          + "blksim.null-blk.poll-queues = 0";

  private static RunResult run(String... sets) {
    BlksimSettings s = Runs.settings(SEED, sets);
    return Topology.build(s, new TopologyTest.Recorder()).run(new SequentialEngine());
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
        assertThrows(
            ConfigError.class,
            () ->
                Topology.build(
                    Runs.settings(
                        SEED,
                        "io-uring.files=[\"/dev/dm-0\"]",
                        "dm.tables=[\"0 1024 linear /dev/nullb0 0\"]"),
                    new TopologyTest.Recorder()));
    assertTrue(e.getMessage().contains("poll_queues=0 under a DM device"), e.getMessage());
  }

  @Test
  void bothEnginesShouldAgree() {
    Runs.sameOnBothEngines(Runs.settings(SEED));
  }

  @Test
  void aTimerCompletionShouldBeRefusedByName() {
    ConfigError e =
        assertThrows(
            ConfigError.class,
            () ->
                Topology.build(
                    Runs.settings(SEED, "null-blk.irqmode=2"), new TopologyTest.Recorder()));
    assertTrue(e.getMessage().contains("poll_queues=0 with -p1 and irqmode=2"), e.getMessage());
  }
}

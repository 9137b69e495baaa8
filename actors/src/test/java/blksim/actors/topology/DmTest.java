package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.engine.SequentialEngine;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.queues.cost.CostLedger;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * dm-linear over null_blk: every original is cloned once from the device's io_bs and completes
 * once; a polled clone that finds no tag is requeued through md->wq and leaves the per-CPU cache;
 * seed 002's patches take the clone from io_bs's cache only together.
 */
class DmTest {
  static final String TABLE = "0 524288000 linear /dev/nullb0 0";

  /** The seed command (-d32 -s32 -c32 -b512 -p1) on {@code file}, with dm-0 over nullb0. */
  private static BlksimSettings run(String file, String... sets) {
    return Runs.settings(
        "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = 512,"
            + " files = [\""
            + file
            + "\"] }\nblksim.dm.tables = [\""
            + TABLE
            + "\"]\nblksim.run.runtime = 2ms",
        sets);
  }

  private static RunResult seq(BlksimSettings s) {
    return Topology.build(s, new TopologyTest.Recorder()).run(new SequentialEngine());
  }

  private static double nsPerIo(RunResult r) {
    long ps = 0;
    for (int cpu : r.busyCpus()) {
      ps += r.ledger().totalPs(cpu);
    }
    return ps / 1000.0 / r.done();
  }

  private static long calls(RunResult r, String fn) {
    CostLedger.Entry e = r.ledger().steps(0).get(fn);
    return e == null ? 0 : e.calls();
  }

  @Test
  void everyOriginalShouldBeClonedOnceAndCompleteOnceOnBothEngines() {
    RunResult r = Runs.sameOnBothEngines(run("/dev/dm-0"));
    RunResult.Dm dm = r.dms().get(0);
    long completed = r.submitters().get(0).completed();
    assertEquals(r.done(), completed, "every I/O submitted completed once");
    assertEquals(completed, dm.dmIos(), "one dm_io per original");
    assertEquals(dm.dmIos(), calls(r, "dm_submit_bio"));
    assertEquals(dm.dmIos(), calls(r, "clone_endio"), "each clone ended once");
    assertEquals(dm.dmIos(), calls(r, "dm_io_complete"));
    assertEquals(dm.dmIos(), dm.mempoolAllocs(), "no clone cache before seed 002");
    assertEquals(0, dm.requeuedPolledEagain());
  }

  @Test
  void dmShouldAddItsOwnFunctionsToTheRawPathAndNothingElse() {
    RunResult raw = seq(run("/dev/nullb0"));
    RunResult dm = seq(run("/dev/dm-0"));
    assertTrue(nsPerIo(dm) > nsPerIo(raw) + 50, nsPerIo(dm) + " vs " + nsPerIo(raw));
    Map<String, CostLedger.Entry> rawSteps = raw.ledger().steps(0);
    for (String fn : dm.ledger().steps(0).keySet()) {
      if (!rawSteps.containsKey(fn)) {
        assertTrue(
            Map.of(
                        "dm_submit_bio",
                        1,
                        "alloc_io",
                        1,
                        "__bio_clone",
                        1,
                        "bio_associate_blkg",
                        1,
                        "linear_map",
                        1,
                        "dm_start_io_acct",
                        1,
                        "dm_end_io_acct",
                        1,
                        "clone_endio",
                        1,
                        "dm_io_complete",
                        1,
                        "dm_poll_bio",
                        1)
                    .containsKey(fn)
                || fn.equals("bio_poll")
                || fn.equals("bio_free"),
            "a function only DM adds: " + fn);
      }
    }
    // 5.18's io_do_iopoll stops at the first request it completes, and dm_poll_bio completes only
    // the one it is asked for: one pass per I/O, where the raw device needs one per batch.
    assertTrue(calls(dm, "io_do_iopoll") >= dm.done() - 32, "a poll pass per DM request");
    assertTrue(calls(raw, "io_do_iopoll") < raw.done() / 16, "a poll pass per raw batch");
  }

  @Test
  void aPolledCloneWithoutATagShouldBeRequeuedNotPolledAndLeaveThePerCpuCache() {
    BlksimSettings s = run("/dev/dm-0", "io-uring.depth=128");
    RunResult r = Runs.sameOnBothEngines(s);
    RunResult.Dm dm = r.dms().get(0);
    assertTrue(dm.requeuedPolledEagain() > 0, "-d128 on 64 tags: some clones found no tag");
    assertEquals(dm.requeuedPolledEagain(), dm.resubmitted(), "md->wq resubmits each once");
    assertEquals(r.done(), r.submitters().get(0).completed(), "every I/O completed once");
    assertEquals(
        dm.requeuedPolledEagain(),
        r.bioCache().freedUncached(),
        "each requeued original lost BIO_PERCPU_CACHE and went back to the slab");
    assertEquals(
        r.hctxs().stream().mapToLong(RunResult.Hctx::noTag).sum(),
        dm.requeuedPolledEagain(),
        "one requeue per clone that found no tag");
    assertTrue(r.workers().isEmpty(), "DM requeues what found no tag: io-wq never sees it");
    assertEquals(dm.dmIos(), r.done() + dm.resubmitted(), "a new dm_io for each resubmission");
  }

  @Test
  void theSeedPatchesShouldTakeClonesFromTheCacheOnlyTogether() {
    String all = "dm-clone-percpu-cache,dm-io-bioset-percpu-cache,dm-percpu-cache-only-if-poll";
    for (String one : all.split(",")) {
      RunResult r = seq(run("/dev/dm-0", "kernel.patches=[" + one + "]"));
      assertEquals(0, r.dms().get(0).cacheHits(), one + " alone changes nothing");
    }
    RunResult base = seq(run("/dev/dm-0"));
    RunResult both = seq(run("/dev/dm-0", "kernel.patches=[" + all + "]"));
    RunResult.Dm dm = both.dms().get(0);
    assertTrue(dm.cacheHits() > dm.dmIos() - 64, "clones come from io_bs's per-CPU cache");
    assertTrue(nsPerIo(both) < nsPerIo(base), "the cache saves the slab's alloc and free");
    assertTrue(both.books().balanced(), both.books().violations().toString());
  }

  @Test
  void pollingShouldBeatInterruptsOnAFastDeviceAndASlowOneShouldFollowLittlesLaw() {
    RunResult polled = seq(run("/dev/dm-0"));
    RunResult irq = seq(run("/dev/dm-0", "io-uring.polled=false"));
    assertTrue(polled.done() > irq.done(), polled.done() + " vs " + irq.done());
    assertTrue(irq.books().balanced(), irq.books().violations().toString());
    // A 10 us device at depth 4: interrupts complete 4 I/Os per 10 us and what the CPU adds to
    // each (its submission, the interrupt, the wake-up), whatever DM costs: the device bounds it.
    String[] slowDevice = {
      "io-uring.depth=4",
      "io-uring.batch-submit=4",
      "io-uring.batch-complete=4",
      "null-blk.irqmode=2",
      "null-blk.completion-nsec=10000",
      "cpu.count=1"
    };
    RunResult slow = Runs.sameOnBothEngines(run("/dev/dm-0", with(slowDevice, "polled=false")));
    double iops = slow.done() / 2e-3;
    double bound = 4 / 10e-6;
    assertTrue(iops > 0.7 * bound && iops < bound, iops + " vs the device's " + bound);
    double inFlight = iops * slow.latencyNs().getMean() * 1e-9;
    assertEquals(4, inFlight, 0.05, "Little's law: IOPS x latency = depth");
    // null_blk's poll queues complete when polled, whatever irqmode says: polling is not bound.
    RunResult polledSlow = seq(run("/dev/dm-0", with(slowDevice, "polled=true")));
    assertTrue(polledSlow.done() / 2e-3 > 3 * bound, "poll queues take no timer");
  }

  private static String[] with(String[] sets, String polled) {
    String[] all = java.util.Arrays.copyOf(sets, sets.length + 1);
    all[sets.length] = "io-uring." + polled;
    return all;
  }

  @Test
  void aTableTheKernelRefusesShouldBeRefusedNamingWhy() {
    assertRefused("0 0 linear /dev/nullb0 0", "num_sectors 0");
    assertRefused("1 100 linear /dev/nullb0 0", "Gap in table");
    assertRefused("0 100 linear /dev/nullb0", "Invalid argument count");
    assertRefused("0 100 linear /dev/nullb0 x", "Invalid device sector");
    assertRefused("0 100 striped 2 8 /dev/nullb0 0", "not modelled yet");
    assertRefused("0 100 linear /dev/sda 0", "no such device /dev/sda");
    assertRefused("0 1024 linear /dev/nullb0 524288000", "nullb0 too small for target");
    assertRefused("0 100 linear /dev/nullb0 0;100 28 linear /dev/nullb0 0", "target boundary");
  }

  private static void assertRefused(String table, String why) {
    ConfigError e =
        assertThrows(
            ConfigError.class,
            () ->
                Topology.build(
                    Runs.settings(
                        "blksim.io-uring.files = [\"/dev/dm-0\"]\nblksim.dm.tables = [\""
                            + table
                            + "\"]"),
                    new TopologyTest.Recorder()));
    assertTrue(e.getMessage().contains(why), e.getMessage());
    assertTrue(e.getMessage().startsWith("dm-0: "), e.getMessage());
    assertTrue(!e.getMessage().contains("\n"), "one line");
  }
}

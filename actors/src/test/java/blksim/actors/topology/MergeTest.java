package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Plug merging (queue.nomerges): t/io_uring -R0 reads one file sequentially, so each bio starts
 * where the one before it ends and goes behind the plug's request (blk_attempt_plug_merge), up to
 * the queue's max_sectors; -R1's random offsets never merge.
 */
class MergeTest {
  private static final String SEED = Runs.D32 + "blksim.run.runtime = 5ms\n";

  private static RunResult run(String... sets) {
    RunResult r = Runs.sequential(SEED, sets);
    assertTrue(r.books().balanced(), r.books().violations().toString());
    return r;
  }

  @Test
  void sequentialReadsShouldMergeIntoOneRequestAPlug() {
    RunResult r = run("io-uring.random-io=false", "queue.nomerges=0");
    RunResult.Hctx h = r.hctxs().get(0);
    long bios = h.dispatched() + h.merged();
    assertEquals(r.reaps(), bios, "every bio ended, in a request of its own or behind one");
    assertEquals(32.0, (double) bios / h.dispatched(), 0.01, "a batch of 32 bios, one request");
    assertEquals(1, h.maxInUse(), "one tag for the whole batch");
    RunResult random = run("io-uring.random-io=true", "queue.nomerges=0");
    assertEquals(0, random.hctxs().get(0).merged(), "random offsets never line up");
    assertTrue(r.reaps() > random.reaps(), "merged: faster than -R1");
  }

  @Test
  void nomerges2ShouldMakeSequentialAndRandomTheSame() {
    RunResult seq = run("io-uring.random-io=false", "queue.nomerges=2");
    RunResult rnd = run("io-uring.random-io=true", "queue.nomerges=2");
    assertEquals(0, seq.hctxs().get(0).merged());
    assertEquals(rnd.reaps(), seq.reaps());
    assertTrue(
        rnd.reaps() > run("io-uring.random-io=true", "queue.nomerges=0").reaps(),
        "with merges on, each random bio pays its look at the plug");
  }

  @Test
  void aRequestShouldStopAtTheQueuesMaxSectors() {
    // 4 KiB bios are 8 sectors: 31 fit in max_sectors (255), the 32nd starts a request of its own
    RunResult r = run("io-uring.random-io=false", "queue.nomerges=1", "io-uring.block-size=4096");
    RunResult.Hctx h = r.hctxs().get(0);
    assertEquals(16.0, (double) (h.dispatched() + h.merged()) / h.dispatched(), 0.01);
  }

  @Test
  void bothEnginesShouldAgree() {
    Runs.sameOnBothEngines(
        Runs.settings(
            SEED, "io-uring.random-io=false", "queue.nomerges=0", "kernel.preset=\"5.17\""));
  }
}

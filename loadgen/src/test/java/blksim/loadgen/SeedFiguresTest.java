package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The seeds' figures, pinned with the default seed (golden values), each also checked against the
 * range the project set for it. A change that moves one must say why in its commit.
 *
 * <p>Last moved when PathCosts rounded each price to picoseconds once, when it is derived, instead
 * of after every step of its derivation: seed 000's bdev-inode-inline row moved by one batch of 32
 * (3,312,704 to 3,312,672), at a mean cost less than a picosecond away.
 *
 * <p>Before that, moved when the rsrc node reference's RCU sections became __rcu_read_lock and
 * __rcu_read_unlock of their own in the profile, out of io_submit_sqes and the completion: seed
 * 000's baseline and its bdev-cache-in-file row moved by one batch of 32 (the new ids' streams of
 * variation), at the same mean cost. Before that, by the rsrc node's references (docs/kernel.md
 * section 8): each percpu_ref_get and _put priced as the RCU read-side section it is, and 5.16's
 * io-uring-rsrc-node-ctx, on the 5.18 path that seed 002 runs (fio's registered files and buffers):
 * its scale was calibrated again to the 900K (2.111 to 2.136), and its prediction moved from +5.41
 * % to +5.48 %.
 *
 * <p>Before that, moved by 5.16's blkdev-dio-flags and rq-layout on the same path: its scale was
 * calibrated again to the 900K (2.093 to 2.111), and its prediction moved from +5.36 % to +5.41 %,
 * its patches saving the same from a cheaper path.
 *
 * <p>Before that, moved when row 19's tail (docs/costs.md section 6) went from one [unattributed]
 * charge per I/O into the rows' own functions, in proportion, and into the slab path's steps by the
 * same factor: the per-CPU bio cache is now worth +8.9 % (+7.5 % before; Jens Axboe measured +9.4
 * to +10 %), since the slab steps it replaces carry their share; -p0 runs without the cache and
 * lost 0.5 %; seed 002's DM I/O runs some rows twice and others not at all, and its scale was
 * calibrated again to the 900K (2.075 to 2.093); its prediction moved from +4.45 % to +5.36 %,
 * because the clone's slab allocation that its patches remove carries its share of the tail too.
 * Seed 000's and 003's figures moved by a batch of 32 I/Os or none (the splits' own streams of
 * variation).
 *
 * <p>Before that, moved by the 5.16-5.17 changes on the 5.18 path (docs/kernel.md section 8), which
 * seed 002 runs: its profile's one scale was calibrated again to the 900K (1.94 to 2.075), and its
 * prediction moved from +4.15 % to +4.45 %, since its patches now save from a cheaper path. The
 * seeds run without a preset moved by a batch of 32 I/Os or none: the IOPOLL ring's completion
 * (io_iopoll_complete) and the tag's get and free became functions of their own, with streams of
 * their own for per-call variation, at the same mean costs. Before that, per-call variation (cv
 * 0.15): each call costs its price times a factor of mean 1, so the mean cost stays and the figures
 * moved by at most 0.01 % (IOPS count whole batches of 32 in a second: up to two batches either
 * way); no delta of a patch moved by more than 0.01 points. Before that, the scheduler tick
 * (interference.tick, 250 Hz, 1.9 us a tick) took 0.04-0.05 % off every figure, the tick's share of
 * a busy CPU (docs/costs.md 7.1).
 */
class SeedFiguresTest {
  private static final String[] SEED_000 = {
    "--", "io_uring", "-d32", "-s32", "-c32", "-b512", "-p1", "/dev/nullb0"
  };

  /** IOPS of the variant rows of a compare, in order. */
  private static long[] iops(Blksim r) {
    Matcher m =
        Pattern.compile("\n  (A \\(baseline\\)|A \\+ [a-z-]+|B[^\n]*?)\\s+(\\d+)\\s+\\d+\\.\\d\\s")
            .matcher(r.out());
    java.util.List<Long> v = new java.util.ArrayList<>();
    while (m.find()) {
      v.add(Long.parseLong(m.group(2)));
    }
    return v.stream().mapToLong(Long::longValue).toArray();
  }

  private static final String[] SEED_003 = {
    "--", "io_uring", "-b512", "-d128", "-c32", "-s32", "-p1", "-F1", "-B1", "/dev/nullb0"
  };

  private static Blksim compare(String... options) {
    return compareOn(SEED_000, options);
  }

  private static Blksim compareOn(String[] run, String... options) {
    String[] args = new String[2 + options.length + run.length];
    args[0] = "compare";
    args[1] = "--engine=sequential";
    System.arraycopy(options, 0, args, 2, options.length);
    System.arraycopy(run, 0, args, 2 + options.length, run.length);
    Blksim r = Blksim.run(args);
    assertEquals(0, r.status(), r.err());
    return r;
  }

  @Test
  void seed000PatchesOnBegunkov2021() {
    long[] v =
        iops(
            compare(
                "--profile",
                "begunkov-2021",
                "--patch",
                "bdev-cache-in-file,bdev-inode-inline,end-request-fast-path"));
    assertEquals(5, v.length);
    assertEquals(3_298_592, v[0], "baseline");
    assertEquals(3_381_152, v[1], "bdev-cache-in-file alone");
    assertEquals(3_312_672, v[2], "bdev-inode-inline alone");
    assertEquals(3_351_136, v[3], "end-request-fast-path alone");
    assertEquals(3_478_240, v[4], "all three");
    assertTrue(v[0] >= 3_200_000 && v[0] <= 3_400_000, "baseline 3.2-3.4 MIOPS");
    assertTrue(v[4] >= 3_400_000 && v[4] <= 3_600_000, "patched 3.4-3.6 MIOPS");
    double delta = 100.0 * (v[4] - v[0]) / v[0];
    assertTrue(delta >= 4 && delta <= 7, "delta +4..+7 %, was " + delta);
  }

  /** Seed 002's box, as the profile says it ran: fio's load through t/io_uring's flags on dm-0. */
  private static final String[] SEED_002 = {
    "--", "io_uring", "-d64", "-s16", "-c16", "-b4096", "-p1", "-F1", "-B1", "/dev/dm-0"
  };

  @Test
  void seed002PatchesOnSnitzer2022AreAPrediction() {
    long[] v =
        iops(
            compareOn(
                SEED_002,
                "--profile",
                "snitzer-2022",
                "--set",
                "run.runtime=200ms",
                "--patch",
                "dm-clone-percpu-cache,dm-io-bioset-percpu-cache,dm-percpu-cache-only-if-poll"));
    assertEquals(5, v.length);
    assertEquals(900_080, v[0], "baseline");
    assertTrue(Math.abs(v[0] - 900_000) <= 27_000, "baseline calibrated to 900K +- 3 %");
    for (int i = 1; i <= 3; i++) {
      assertEquals(v[0], v[i], "each patch alone leaves the clone's allocation as it was");
    }
    // The gain is withheld from the project: B is blksim's prediction, pinned, not checked
    // against a range; only its sign follows from the patches removing work.
    assertEquals(949_440, v[4], "all three: the prediction");
    assertTrue(v[4] > v[0], "the clone cache removes work");
  }

  @Test
  void thePerCpuBioCacheIsWorthSevenToTwelvePercent() {
    long[] v = iops(compare("--a-set", "bioset.percpu-cache=false"));
    assertEquals(3_028_768, v[0], "cache off");
    assertEquals(3_298_592, v[1], "cache on");
    double worth = 100.0 * (v[1] - v[0]) / v[0];
    assertTrue(worth >= 7 && worth <= 12, "cache worth +7..+12 %, was " + worth);
  }

  @Test
  void interruptDrivenCompletionIsSlowerAndShowsTheIrqPath() {
    Blksim r = compare("--b-set", "io-uring.polled=false");
    long[] v = iops(r);
    assertEquals(2_988_576, v[1], "-p0");
    assertTrue(v[1] < v[0]);
    for (String fn :
        new String[] {
          "blk_mq_complete_request", "io_req_task_work_add", "tctx_task_work", "bio_free"
        }) {
      assertTrue(
          Pattern.compile("\n    " + fn + "\\s+0\\.00\\s+\\d+\\.\\d\\d\\s+new")
              .matcher(r.out())
              .find(),
          fn);
    }
  }

  @Test
  void seed003BioInitOnTheXeonGold6154() {
    Blksim r = compareOn(SEED_003, "--profile", "xeon-gold-6154", "--patch", "bio-init-compound");
    long[] v = iops(r);
    assertEquals(1_365_216, v[0], "baseline, the calibration target 1366K");
    assertTrue(v[0] >= 1_330_000 && v[0] <= 1_400_000);
    // Bart Van Assche measured +1 %. From Intel's published costs (rep stosq of 16 qwords ~31
    // cycles, 20 stores ~20) the model says -0.55 %, and it is not fitted to agree: his saving,
    // 1e9/1366K - 1e9/1380K = 7.43 ns per I/O, is more than the whole field-by-field bio_init
    // costs here, so no cost of rep stos could give it.
    assertEquals(1_357_664, v[1], "with bio-init-compound");
    Matcher bioInit =
        Pattern.compile("\\n    bio_init\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)").matcher(r.out());
    assertTrue(bioInit.find(), r.out());
    double baselineNs = Double.parseDouble(bioInit.group(1));
    assertEquals(20 / 3.7, baselineNs, 0.01, "20 stores at one a cycle, 3.7 GHz");
    assertTrue(baselineNs < 1e9 / 1_366_000 - 1e9 / 1_380_000);
  }

  @Test
  void seed003BioInitOnZen2IsAPrediction() {
    long[] v = iops(compareOn(SEED_003, "--profile", "zen2-3970x", "--patch", "bio-init-compound"));
    assertEquals(3_157_856, v[0]);
    assertEquals(3_091_968, v[1], "-2.09 %: rep stosq's ~29-cycle start-up on a Zen core");
  }

  @Test
  void interruptDrivenCompletionIsSlowerOnEveryProfile() {
    for (String profile : new String[] {"xeon-gold-6154", "zen2-3970x"}) {
      long[] v =
          iops(compareOn(SEED_003, "--profile", profile, "--b-set", "io-uring.polled=false"));
      assertTrue(v[1] < v[0], profile);
    }
  }
}

package blksim.queues.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.CpuProfile;
import blksim.config.Scenario;
import blksim.config.Work;
import blksim.config.WorkUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A patch described as data, priced on the profile's facts: on the reference box (4 GHz) an L1 load
 * and a call are 1.25 ns, an L2 load 3.5 ns, a store 0.25, an atomic 4.5; on Skylake-SP
 * (xeon-gold-6154, 3.7 GHz, a kernel with retpolines) an indirect call is 25 cycles.
 */
class PatchPricesTest {
  private static final PathCosts.Knobs REGISTERED = new PathCosts.Knobs(true, true, true);

  private static BlksimSettings settings(String hocon, String... patches) {
    Scenario s = new Scenario().hocon(hocon, "test");
    return s.addPatches(List.of(patches)).settings();
  }

  private static PathCosts costs(BlksimSettings s) {
    return PathCosts.of(s.profile(), s.kernel(), REGISTERED);
  }

  private static double ns(PathCosts c, KernelFn fn) {
    return c.step(fn).ps() / 1000.0;
  }

  private static CpuProfile profile(String name) {
    return new Scenario().set("cpu.profile=" + name).settings().profile();
  }

  @Test
  void eachUnitShouldCostWhatTheFactsSay() {
    CpuProfile ref = profile("begunkov-2021");
    Object[][] units = {
      {WorkUnit.L1_LOADS, 1.25},
      {WorkUnit.L2_LOADS, 3.5},
      {WorkUnit.CALLS, 1.25},
      {WorkUnit.INDIRECT_CALLS, 1.25},
      {WorkUnit.STORES, 0.25},
      {WorkUnit.ATOMICS, 4.5},
      {WorkUnit.IRQ_SAVE_RESTORE, 9.25},
      {WorkUnit.KTIME, 15.0},
      {WorkUnit.CACHELINES, 30.0},
      {WorkUnit.NS, 1.0},
    };
    for (Object[] u : units) {
      Work two = new Work(Map.of((WorkUnit) u[0], 2.0));
      assertEquals(2 * (double) u[1], PatchPrices.ns(two, ref), 1e-12, u[0].toString());
    }
    // rep stosq: start-up once (15 cycles), then a cycle a qword; a negative count takes one away
    assertEquals(
        (15 + 16) / 4.0, PatchPrices.ns(new Work(Map.of(WorkUnit.REP_STOS_QWORDS, 16.0)), ref));
    assertEquals(
        -(15 + 16) / 4.0, PatchPrices.ns(new Work(Map.of(WorkUnit.REP_STOS_QWORDS, -16.0)), ref));
    CpuProfile skx = profile("xeon-gold-6154");
    assertEquals(
        (5 + 20) / 3.7, PatchPrices.ns(new Work(Map.of(WorkUnit.INDIRECT_CALLS, 1.0)), skx), 1e-12);
    assertEquals(
        skx.scale(), PatchPrices.ns(new Work(Map.of(WorkUnit.NS, 1.0)), skx), 1e-12, "ns scales");
  }

  private static final String MINE =
      "blksim.patches.mine {\n"
          + "  changes {\n"
          + "    submit_bio_noacct { l1-loads = -2 }\n"
          + "    bio_iov_bvec_set { calls = 1 }\n"
          + "    io_do_iopoll { stores = 4 }\n"
          + "  }\n"
          + "  adds {\n"
          + "    __audit_uring_entry { called-from = io_issue_sqe, per-call = 2, calls = 1,"
          + " l1-loads = 3, atomics = 1 }\n"
          + "  }\n"
          + "}\n";

  @Test
  void changesShouldAddToTheNamedFunctionsAndAddsShouldRideOnTheirCaller() {
    PathCosts base = costs(settings(MINE));
    PathCosts mine = costs(settings(MINE, "mine"));
    assertEquals(
        ns(base, KernelFn.SUBMIT_BIO_NOACCT) - 2.5, ns(mine, KernelFn.SUBMIT_BIO_NOACCT), 1e-9);
    // a function the path does not run here (no 5.16 bvec set) is left at 0
    assertEquals(0, ns(base, KernelFn.BIO_IOV_BVEC_SET));
    assertEquals(0, ns(mine, KernelFn.BIO_IOV_BVEC_SET));
    // a change by name applies to every variant of the function: the poll that finds requests
    // and the one that finds none
    assertEquals(ns(base, KernelFn.IO_DO_IOPOLL) + 1, ns(mine, KernelFn.IO_DO_IOPOLL), 1e-9);
    assertEquals(
        ns(base, KernelFn.IO_DO_IOPOLL_EMPTY) + 1, ns(mine, KernelFn.IO_DO_IOPOLL_EMPTY), 1e-9);
    for (KernelFn fn : KernelFn.values()) {
      if (fn != KernelFn.SUBMIT_BIO_NOACCT
          && fn != KernelFn.IO_DO_IOPOLL
          && fn != KernelFn.IO_DO_IOPOLL_EMPTY) {
        assertEquals(base.step(fn).ps(), mine.step(fn).ps(), fn.symbol() + " is not changed");
      }
    }
    assertNull(base.riders(KernelFn.IO_ISSUE_SQE));
    PatchPrices.Rider[] r = mine.riders(KernelFn.IO_ISSUE_SQE);
    assertNotNull(r);
    assertEquals(1, r.length);
    assertEquals("__audit_uring_entry", r[0].step().name());
    assertEquals(2, r[0].perCall());
    assertEquals(Math.round((1.25 + 3 * 1.25 + 4.5) * 1000), r[0].step().ps());
    assertNull(mine.riders(KernelFn.IO_NOP), "no nop in a run of reads: nothing rides on it");
    BlksimSettings s = settings(MINE, "mine");
    PathCosts nops =
        PathCosts.of(
            s.profile(), s.kernel(), new PathCosts.Knobs(true, true, true, 1, false, true));
    assertNotNull(nops.riders(KernelFn.IO_NOP), "a nop's io_issue_sqe is io_issue_sqe too");
    assertEquals(
        mine.step(KernelFn.IO_ISSUE_SQE).ps() + 2 * r[0].step().ps(),
        mine.callPs(KernelFn.IO_ISSUE_SQE));
  }

  @Test
  void aSeriesLaterPatchShouldAddItsWithChangesOnlyOnTopOfTheEarlierOne() {
    String series =
        "blksim.patches.one { changes { blkdev_read_iter { calls = -1 } } }\n"
            + "blksim.patches.two { changes { blk_mq_submit_bio { l1-loads = -1 } },"
            + " with { one { blkdev_read_iter { l2-loads = -1 } } } }\n";
    PathCosts none = costs(settings(series));
    PathCosts two = costs(settings(series, "two"));
    PathCosts both = costs(settings(series, "one", "two"));
    assertEquals(ns(none, KernelFn.BLKDEV_READ_ITER), ns(two, KernelFn.BLKDEV_READ_ITER), 1e-9);
    assertEquals(
        ns(none, KernelFn.BLKDEV_READ_ITER) - 1.25 - 3.5,
        ns(both, KernelFn.BLKDEV_READ_ITER),
        1e-9);
  }

  @Test
  void aPriceBelowZeroOrANameNotOfThePathShouldBeRefusedInOneLine() {
    String[][] cases = {
      {"blksim.patches.x { changes { bio_init { stores = -21 } } }", "makes its price negative"},
      {
        "blksim.patches.x { changes { submit_bio_noac { calls = -1 } } }",
        "did you mean submit_bio_noacct"
      },
      {
        "blksim.patches.x { adds { f { called-from = nowhere, calls = 1 } } }",
        "called-from = nowhere is not a function of blksim's path"
      },
      {"blksim.patches.x { adds { f { called-from = bio_init, calls = -1 } } }", "0 ns or more"},
    };
    for (String[] c : cases) {
      BlksimSettings s = settings(c[0], "x");
      ConfigError e = assertThrows(ConfigError.class, () -> costs(s), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
      assertTrue(!e.getMessage().contains("\n"));
    }
    // a misspelt name is found in a patch that is not turned on too
    BlksimSettings off = settings("blksim.patches.y { changes { bio_inti { calls = 1 } } }");
    ConfigError e = assertThrows(ConfigError.class, () -> costs(off));
    assertTrue(e.getMessage().contains("did you mean bio_init"), e.getMessage());
  }
}

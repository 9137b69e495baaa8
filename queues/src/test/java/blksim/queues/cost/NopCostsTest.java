package blksim.queues.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.CpuProfile;
import blksim.config.KernelSettings;
import blksim.config.Scenario;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A nop's functions on the reference box: its 31.25 ns less 192/32 of io_uring_enter, shared out as
 * the read's rows less what a nop does not run (an L1 load 1.25 ns, a per-CPU add 1 ns, the
 * profile's RCU read-side section 3.41 ns).
 */
class NopCostsTest {
  private static final PathCosts.Knobs NOP = new PathCosts.Knobs(false, true, true, 1, false, true);

  private static double ns(CpuProfile p, KernelFn fn) {
    return PathCosts.of(p, new KernelSettings("", Set.of(), false), NOP).step(fn).ps() / 1000.0;
  }

  private static CpuProfile ref() {
    return BlksimSettings.defaults().profile();
  }

  @Test
  void aNopsCostShouldBeSharedAsTheReadsRowsLessWhatANopSkips() {
    double core = 31.25 - (45 + 129 + 18) / 32.0;
    // prep 6; io_submit_sqes 14 less the file table and slot (2.5) and the rsrc-node get (an RCU
    // section, 1.81 + 1.60, around a load and a per-CPU add: 5.66); io_issue_sqe's 3.02 of 12.88 %
    // of row 4's 22 (with io_read's own 2.59); the flush 24 less the rsrc-node put; reap 6
    double rsrcRef = 1.81 + 1.60 + 1.25 + 1;
    double issue = 22 * 3.02 / (3.02 + 2.60 + 4.67 + 2.59);
    double k = core / (6 + (14 - 2.5 - rsrcRef) + issue + (24 - rsrcRef) + 6);
    assertEquals((14 - 2.5 - rsrcRef) * k, ns(ref(), KernelFn.IO_SUBMIT_SQES), 1e-3);
    assertEquals(issue * k, ns(ref(), KernelFn.IO_NOP), 1e-3);
    assertEquals((24 - rsrcRef) * k, ns(ref(), KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS), 1e-3);
    assertEquals(6 * k, ns(ref(), KernelFn.PREP_MORE_IOS_URING), 1e-3);
    assertTrue(k > 0.55 && k < 0.65, "a nop runs the rows at a little over half a read's: " + k);
  }

  @Test
  void readsShouldKeepTheirRowsAndPayNoIssueOfANop() {
    CpuProfile ref = BlksimSettings.defaults().profile();
    PathCosts reads =
        PathCosts.of(
            ref, new KernelSettings("", Set.of(), false), new PathCosts.Knobs(true, true, true));
    assertEquals(0, reads.step(KernelFn.IO_NOP).ps());
    double rsrcSection =
        (reads.step(KernelFn.RCU_READ_LOCK_RSRC).ps()
                + reads.step(KernelFn.RCU_READ_UNLOCK_RSRC).ps())
            / 1000.0;
    assertEquals(
        14 * PathCostsTest.TAIL,
        reads.step(KernelFn.IO_SUBMIT_SQES).ps() / 1000.0 + rsrcSection,
        1e-3,
        "row 3, its rsrc reference's RCU section shown apart");
  }

  @Test
  void aNopFigureBelowItsShareOfTheSyscallShouldBeRefusedByName() {
    CpuProfile cheap =
        new Scenario()
            .hocon("blksim.profiles.begunkov-2021.steps.nop = 5", "test")
            .settings()
            .profile();
    ConfigError e = assertThrows(ConfigError.class, () -> ns(cheap, KernelFn.IO_NOP));
    assertTrue(e.getMessage().contains("steps.nop"), e.getMessage());
  }
}

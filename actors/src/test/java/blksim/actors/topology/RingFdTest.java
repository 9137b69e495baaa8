package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.CostLedger;
import org.junit.jupiter.api.Test;

/**
 * -X1 (t/io_uring's default) registers the ring's fd with IORING_REGISTER_RING_FDS, which came in
 * 5.18: before it the registration fails, t/io_uring goes on without, and every io_uring_enter pays
 * fdget/fdput.
 */
class RingFdTest {
  private static RunResult run(String kernel) {
    return Runs.sequential(
        Runs.D32
            + "blksim.run.runtime = 5ms\nblksim.interference.enabled = false\n"
            + "blksim.kernel.preset = \""
            + kernel
            + "\"");
  }

  @Test
  void onlyFrom518ShouldTheRegisteredRingSaveFdgetAndFdput() {
    assertEquals(0, run("5.18").ledger().steps(0).get("__fget_light").ps(), "registered: no fdget");
    RunResult k516 = run("5.16");
    CostLedger.Entry e = k516.ledger().steps(0).get("__fget_light");
    assertEquals(k516.ledger().steps(0).get("io_uring_enter").calls(), e.calls(), "one a call");
    assertEquals(18_000, e.ps() / e.calls(), "__fget_light with its fdput, 18 ns");
    assertTrue(k516.reaps() < run("5.18").reaps());
  }
}

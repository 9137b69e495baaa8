package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.ReferenceCosts;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Other CPUs' rings' requests that ended here: each ring's CPU hears of its own. */
class ForeignCompletionsTest {
  private static final CostStep LINES = new CostStep(Contention.LINES_REMOTE_COMPLETION, 100);

  /** A request of ring {@code owner}, submitted. */
  private static IoKiocb req(int owner) {
    SqRing sq = new SqRing(4);
    IoRingCtx ring = new IoRingCtx(sq, new CqRing(4), owner);
    sq.tryClaim(new Sqe(Sqe.IORING_OP_READ, 0, 0, 0, 4096, 0, 0));
    sq.publish();
    return ring.submitSqe();
  }

  @Test
  void eachRingHearsOfItsRequestsRingByRingAfterItsLinesCameOver() {
    Charger charger = new Charger(ReferenceCosts.of(), "cpu1");
    ForeignCompletions f = new ForeignCompletions();
    assertTrue(f.isEmpty());
    IoKiocb a = req(5);
    IoKiocb b = req(3);
    IoKiocb c = req(5);
    f.add(a, 4096);
    f.add(b, -11);
    f.add(c, 4096);
    ForeignCompletions.Told told = f.tell(charger, 1, CpuTime.IRQ, LINES, 1_000);
    assertEquals(2, told.rings().size());
    ForeignCompletions.ToRing first = told.rings().get(0);
    assertEquals(3, first.ring(), "in the order of the rings' owners");
    assertEquals(List.of(new ForeignCompletions.Completion(b, -11)), first.completions());
    assertEquals(1_100, first.atPs(), "one request's lines");
    ForeignCompletions.ToRing second = told.rings().get(1);
    assertEquals(List.of(a, c), second.completions().stream().map(d -> d.req()).toList());
    assertEquals(1_300, second.atPs(), "two more");
    assertEquals(1_300, told.atPs());
    assertTrue(f.isEmpty(), "told: nothing left");
    assertEquals(List.of(), f.tell(charger, 1, CpuTime.IRQ, LINES, 7).rings());
  }

  @Test
  void completionsThatCameToACpuWithoutTheirRingGoOnToItsCpuFree() {
    IoKiocb mine = req(0);
    IoKiocb theirs = req(4);
    List<ForeignCompletions.Completion> came =
        List.of(
            new ForeignCompletions.Completion(mine, 4096),
            new ForeignCompletions.Completion(theirs, 4096));
    ForeignCompletions.Sorted sorted = ForeignCompletions.sort(came, 500, ring -> ring == 0);
    assertEquals(List.of(came.get(0)), sorted.mine());
    assertEquals(1, sorted.onward().size());
    assertEquals(4, sorted.onward().get(0).ring());
    assertEquals(500, sorted.onward().get(0).atPs(), "at the time they came: no cost");

    ForeignCompletions.Sorted allMine = ForeignCompletions.sort(came, 500, ring -> true);
    assertSame(came, allMine.mine());
    assertEquals(List.of(), allMine.onward());
    assertNull(ForeignCompletions.sort(came, 500, ring -> false).mine(), "none of this CPU's");
  }
}

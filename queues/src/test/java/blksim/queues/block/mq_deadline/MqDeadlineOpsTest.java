package blksim.queues.block.mq_deadline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.KernelSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.PathCosts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * mq-deadline's elevator operations under {@code dd->lock} (block/mq-deadline.c 5.16;
 * docs/kernel.md section 12, "The lock" and "Merges"): what each takes the lock for, and what a CPU
 * pays that finds it held or takes it after another.
 */
class MqDeadlineOpsTest {
  private static final String LOCK_WAIT = "[lock wait] mq-deadline dd->lock";
  private static final String LOCK_LINE = "[line from another CPU] mq-deadline dd->lock";
  private static final String DATA_LINES =
      "[lines from another CPU] mq-deadline lists, next_rq, batching";

  private static PathCosts costs(int nomerges) {
    return PathCosts.of(
        BlksimSettings.defaults().profile(),
        new KernelSettings("", Set.of(), List.of(), Map.of(), false, nomerges, "", 0),
        new PathCosts.Knobs(true, true, true));
  }

  private final PathCosts costs = costs(0);
  private final Charger charger = new Charger(costs, "test");
  private final HwCtx hctx = new HwCtx(0, HctxType.DEFAULT, 64, 2, null, 32);
  private final MqDeadlineOps ops = new MqDeadlineOps(hctx, charger, costs.lineTransferPs());
  private int ids;

  private List<Request> rqs(int cpu, int n) {
    List<Request> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Bio bio = Bio.onStack(ids);
      bio.setRange(8L * ids++, 512);
      out.add(hctx.allocRequest(cpu, bio, 0));
    }
    return out;
  }

  private CostLedger.Entry step(int cpu, String name) {
    return charger.ledger().steps(cpu).get(name);
  }

  @Test
  void ddInsertRequestsShouldTakeTheLockOnceForTheWholeList() {
    long done = ops.ddInsertRequests(0, CpuTime.SUBMIT, rqs(0, 5), 1000);
    assertEquals(1, ops.lock().acquisitions());
    assertEquals(5, hctx.elevator().queued());
    assertEquals(1, step(0, "dd_insert_requests").calls());
    assertEquals(5, step(0, "dd_insert_request").calls());
    // elv_rb_add walks down the tree as it grows: 0 + 1 + 2 + 2 + 3 levels
    assertEquals(8, step(0, "elv_rb_add").calls());
    assertEquals(1000 + charger.ledger().totalPs(0), done, "the call's time is what it charged");
  }

  @Test
  void ddDispatchRequestShouldTakeTheLockForEachRequestAndNoneWhenEmpty() {
    ops.ddInsertRequests(0, CpuTime.SUBMIT, rqs(0, 3), 0);
    long t = 0;
    for (int i = 0; i < 3; i++) {
      MqDeadlineOps.Dispatch d = ops.ddDispatchRequest(0, CpuTime.SUBMIT, t);
      assertTrue(d.atPs() > t);
      t = d.atPs();
    }
    assertEquals(1 + 3, ops.lock().acquisitions());
    assertNull(ops.ddDispatchRequest(0, CpuTime.SUBMIT, t), "dd_has_work: nothing queued");
    assertEquals(1 + 3, ops.lock().acquisitions());
    assertEquals(3, step(0, "dd_dispatch_request").calls());
  }

  @Test
  void ddBioMergeShouldTakeTheLockForEachBioUnlessMergesAreOff() {
    ops.ddBioMerge(0, CpuTime.SUBMIT, 4, 0);
    assertEquals(4, ops.lock().acquisitions());
    PathCosts off = costs(2);
    Charger c = new Charger(off, "test");
    MqDeadlineOps noMerges = new MqDeadlineOps(hctx, c, off.lineTransferPs());
    assertEquals(0, noMerges.ddBioMerge(0, CpuTime.SUBMIT, 4, 0), "nomerges=2: no lookup");
    assertEquals(0, noMerges.lock().acquisitions());
  }

  @Test
  void aSecondCpuOnDdLockShouldSpinAndBeChargedLockWait() {
    ops.ddInsertRequests(0, CpuTime.SUBMIT, rqs(0, 8), 0);
    // CPU 1 arrives at the same time, while CPU 0 holds the lock
    ops.ddInsertRequests(1, CpuTime.SUBMIT, rqs(1, 1), 0);
    assertEquals(1, ops.lock().contended());
    assertTrue(ops.lock().waitedPs() > 0);
    assertEquals(ops.lock().waitedPs(), charger.ledger().time(1, CpuTime.LOCK_WAIT));
    assertEquals(ops.lock().waitedPs(), step(1, LOCK_WAIT).ps());
    assertEquals(0, charger.ledger().time(0, CpuTime.LOCK_WAIT), "the holder never spins");
  }

  @Test
  void theLockTakenAfterAnotherCpuShouldBringItsLineAndTheTwoDataLines() {
    ops.ddInsertRequests(0, CpuTime.SUBMIT, rqs(0, 1), 0);
    ops.ddInsertRequests(0, CpuTime.SUBMIT, rqs(0, 1), 1_000_000);
    assertEquals(0, step(0, DATA_LINES).calls(), "its own lock: no line moves");
    ops.ddInsertRequests(1, CpuTime.SUBMIT, rqs(1, 1), 2_000_000);
    assertEquals(0, ops.lock().contended(), "free by then: no spin");
    assertEquals(1, step(1, LOCK_LINE).calls());
    assertEquals(costs.lineTransferPs(), step(1, LOCK_LINE).ps());
    assertEquals(MqDeadlineOps.DATA_LINES, step(1, DATA_LINES).calls());
    assertEquals(MqDeadlineOps.DATA_LINES * costs.lineTransferPs(), step(1, DATA_LINES).ps());
  }
}

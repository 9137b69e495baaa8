package blksim.queues.block.blk_mq_sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.blk_mq.RunWork;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.cost.ReferenceCosts;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * blk-mq-sched's queue run over mq-deadline (block/blk-mq-sched.c and blk-mq.c 5.16; docs/kernel.md
 * section 12): insert, dispatch in mq-deadline's order, the wait for a driver tag on {@code
 * hctx->dispatch} and kblockd's restart.
 */
class BlkMqSchedTest {
  private static final PathCosts COSTS = ReferenceCosts.of();

  /** What kblockd's worker runs for a queue run. */
  private static final KernelFn[] KBLOCKD = RunWork.KBLOCKD_PATH;

  /** The first task of CPU 0, and of CPU 1. */
  private static final TaskOnCpu ON_CPU0 = new TaskOnCpu(0, 0);

  private static final TaskOnCpu ON_CPU1 = new TaskOnCpu(1, 0);

  private final Charger charger = new Charger(COSTS, "test");
  private HwCtx hctx;
  private BlkMqSched sched;
  private int ids;

  /** A queue of 16 sched tags on two CPUs with {@code driverTags} driver tags. */
  private void queue(int driverTags, boolean endsInQueueRq) {
    hctx = new HwCtx(0, HctxType.DEFAULT, 16, 2, null, driverTags);
    sched = new BlkMqSched(hctx, charger, COSTS.lineTransferPs(), endsInQueueRq, KBLOCKD);
  }

  private Request rq(long sector) {
    Bio bio = Bio.onStack(ids++);
    bio.setRange(sector, 512);
    return hctx.allocRequest(0, bio, 0);
  }

  private List<Request> rqs(long... sectors) {
    List<Request> out = new ArrayList<>();
    for (long s : sectors) {
      out.add(rq(s));
    }
    return out;
  }

  private static List<Long> sectors(BlkMqSched.Dispatched d) {
    List<Long> out = new ArrayList<>();
    for (Request r : d.rqs()) {
      out.add(r.bio().sector());
    }
    return out;
  }

  /** The driver took the requests and ended them: their tags, both kinds, go back. */
  private void end(List<Request> rqs) {
    for (Request r : rqs) {
      hctx.dispatched(r);
      r.markComplete();
      hctx.freeRequest(r, 0, 0);
    }
  }

  private BlkMqSched.Dispatched insert(TaskOnCpu task, long t, List<Request> list) {
    return sched.blkMqSchedInsertRequests(task, CpuTime.SUBMIT, List.of(list), t);
  }

  @Test
  void insertsShouldTakeDdLockOncePerFlushListAndDispatchOncePerRequest() {
    queue(16, false);
    BlkMqSched.Dispatched d =
        sched.blkMqSchedInsertRequests(
            ON_CPU0, CpuTime.SUBMIT, List.of(rqs(1, 2, 3), rqs(4, 5, 6)), 0);
    assertEquals(6, d.rqs().size());
    // dd_insert_requests once a list, dd_dispatch_request once a request; none on the empty tree
    assertEquals(2 + 6, sched.stats().lockTaken());
    assertEquals(2, charger.ledger().steps(0).get("dd_insert_requests").calls());
    assertEquals(6, charger.ledger().steps(0).get("dd_insert_request").calls());
    assertEquals(6, charger.ledger().steps(0).get("dd_dispatch_request").calls());
    assertEquals(6, charger.ledger().steps(0).get("blk_mq_get_driver_tag").calls());
  }

  @Test
  void aQueueRunShouldHandTheDriverRequestsInMqDeadlineOrder() {
    queue(16, false);
    BlkMqSched.Dispatched d = insert(ON_CPU0, 0, rqs(50, 10, 30, 20, 40));
    // the FIFO's head first, then from the oldest left upwards in sector order
    assertEquals(List.of(50L, 10L, 20L, 30L, 40L), sectors(d));
    assertEquals(0, hctx.elevator().queued());
    assertEquals(5, hctx.driverTags().inUse(), "each with its driver tag");
    assertTrue(d.atPs() > 0, "the run takes time");
  }

  @Test
  void aRequestWithNoDriverTagShouldWaitOnHctxDispatchAndMarkSchedRestart() {
    queue(2, false);
    BlkMqSched.Dispatched d = insert(ON_CPU0, 0, rqs(1, 2, 3, 4));
    assertEquals(List.of(1L, 2L), sectors(d), "the third finds no driver tag: the run stops");
    assertEquals(1, sched.waiting(), "it waits on hctx->dispatch");
    assertEquals(1, hctx.elevator().queued(), "the fourth stays in mq-deadline");
    assertTrue(sched.restartMarked());
    assertEquals(1, sched.stats().waited());
    assertFalse(sched.paused(ON_CPU0));
  }

  @Test
  void aFreedDriverTagShouldRestartTheMarkedQueueOnKblockd() {
    queue(2, false);
    BlkMqSched.Dispatched first = insert(ON_CPU0, 0, rqs(1, 2, 3, 4));
    assertNull(
        sched.blkMqSchedRestart(ON_CPU1, CpuTime.KWORKER, 0),
        "every driver tag still held: no run");
    end(first.rqs());
    long before = charger.ledger().time(1, CpuTime.KWORKER);
    BlkMqSched.Dispatched again = sched.blkMqSchedRestart(ON_CPU1, CpuTime.KWORKER, 1000);
    assertNotNull(again);
    assertEquals(List.of(3L, 4L), sectors(again), "hctx->dispatch's, then mq-deadline's");
    assertEquals(0, sched.waiting());
    assertFalse(sched.restartMarked(), "the mark is cleared by the run");
    assertEquals(1, sched.stats().restarts());
    assertEquals(1, charger.ledger().steps(1).get("blk_mq_run_work_fn").calls());
    assertTrue(charger.ledger().time(1, CpuTime.KWORKER) > before, "kblockd's time, on its CPU");
    assertTrue(again.atPs() > 1000);
  }

  @Test
  void anUnmarkedQueueShouldNotRestart() {
    queue(4, false);
    end(insert(ON_CPU0, 0, rqs(1, 2)).rqs());
    assertFalse(sched.restartMarked());
    assertNull(sched.blkMqSchedRestart(ON_CPU0, CpuTime.KWORKER, 0));
    assertEquals(0, sched.stats().restarts());
  }

  @Test
  void requestsOnHctxDispatchShouldGoBeforeTheSchedulers() {
    queue(2, false);
    BlkMqSched.Dispatched first = insert(ON_CPU0, 0, rqs(100, 101, 102));
    assertEquals(1, sched.waiting(), "102 waits on hctx->dispatch");
    // a later flush: its run tries hctx->dispatch first, finds no tag, and leaves 5 in the tree
    BlkMqSched.Dispatched second = insert(ON_CPU0, 10_000, rqs(5));
    assertEquals(List.of(), second.rqs());
    assertEquals(1, hctx.elevator().queued());
    end(first.rqs());
    BlkMqSched.Dispatched again = sched.blkMqSchedRestart(ON_CPU0, CpuTime.KWORKER, 20_000);
    assertEquals(List.of(102L, 5L), sectors(again), "the waiting one first, though sector 5");
  }

  @Test
  void aRunThatFindsNoDriverTagShouldPauseWhereTheDriverEndsRequestsInQueueRq() {
    queue(1, true);
    BlkMqSched.Dispatched d = insert(ON_CPU0, 0, rqs(1, 2));
    assertEquals(List.of(1L), sectors(d), "the driver gets what the run has first");
    assertTrue(sched.paused(ON_CPU0));
    assertFalse(sched.paused(ON_CPU1), "a run is its task's");
    assertEquals(0, sched.stats().waited(), "not on hctx->dispatch");
    assertFalse(sched.restartMarked());
    end(d.rqs());
    BlkMqSched.Dispatched rest = sched.resumeDispatchRqList(ON_CPU0, CpuTime.SUBMIT, d.atPs());
    assertEquals(List.of(2L), sectors(rest), "its second try takes the tag the end freed");
    assertFalse(sched.paused(ON_CPU0));
    assertEquals(0, sched.waiting());
  }

  /**
   * {@code blk_mq_dispatch_rq_list} runs in its caller's context, its list on the caller's stack: a
   * run paused for the driver's ends is the task's that ran it, and another task of its CPU flushes
   * and runs the queue beside it.
   */
  @Test
  void aPausedRunShouldBeItsTasksNotAnotherOfItsCpus() {
    queue(1, true);
    BlkMqSched.Dispatched d = insert(ON_CPU0, 0, rqs(1, 2));
    TaskOnCpu sibling = new TaskOnCpu(0, 1);
    assertTrue(sched.paused(ON_CPU0));
    assertFalse(sched.paused(sibling), "the sibling's run has not paused");
    BlkMqSched.Dispatched other = insert(sibling, 10, rqs(3));
    assertEquals(List.of(), other.rqs(), "no driver tag: the sibling's request waits");
    assertFalse(sched.paused(sibling), "with nothing dispatched it waits on hctx->dispatch");
    end(d.rqs());
    assertEquals(List.of(2L), sectors(sched.resumeDispatchRqList(ON_CPU0, CpuTime.SUBMIT, 20)));
    assertTrue(sched.paused(ON_CPU0), "3, on hctx->dispatch, finds no tag behind 2: paused again");
    assertFalse(sched.paused(sibling));
  }

  @Test
  void aPausedRunShouldGoOnOverTheLaterFlushesWhenItResumes() {
    queue(1, true);
    BlkMqSched.Dispatched d =
        sched.blkMqSchedInsertRequests(ON_CPU0, CpuTime.SUBMIT, List.of(rqs(1, 2), rqs(3)), 0);
    assertEquals(List.of(1L), sectors(d));
    assertEquals(1, hctx.elevator().queued(), "the second list is inserted, not run");
    end(d.rqs());
    BlkMqSched.Dispatched next = sched.resumeDispatchRqList(ON_CPU0, CpuTime.SUBMIT, d.atPs());
    assertEquals(List.of(2L), sectors(next));
    assertTrue(sched.paused(ON_CPU0), "3 finds no tag behind 2: paused again");
    end(next.rqs());
    assertEquals(List.of(3L), sectors(sched.resumeDispatchRqList(ON_CPU0, CpuTime.SUBMIT, 0)));
  }

  @Test
  void aResumedRunThatStillFindsNoDriverTagShouldWaitOnHctxDispatch() {
    queue(1, true);
    BlkMqSched.Dispatched d = insert(ON_CPU0, 0, rqs(1, 2));
    assertTrue(sched.paused(ON_CPU0));
    BlkMqSched.Dispatched rest = sched.resumeDispatchRqList(ON_CPU0, CpuTime.SUBMIT, d.atPs());
    assertEquals(List.of(), rest.rqs(), "the tag is still held");
    assertFalse(sched.paused(ON_CPU0));
    assertEquals(1, sched.waiting());
    assertEquals(1, sched.stats().waited());
    assertTrue(sched.restartMarked());
    end(d.rqs());
    assertEquals(List.of(2L), sectors(sched.blkMqSchedRestart(ON_CPU0, CpuTime.KWORKER, 0)));
  }

  @Test
  void aRunWithNothingDispatchedShouldWaitOnHctxDispatchEvenWhereTheDriverEndsInQueueRq() {
    queue(1, true);
    List<Request> one = insert(ON_CPU0, 0, rqs(1)).rqs();
    // another CPU's run: the only driver tag is held, and it has nothing for the driver to end
    BlkMqSched.Dispatched other = insert(ON_CPU1, 0, rqs(2));
    assertEquals(List.of(), other.rqs());
    assertFalse(sched.paused(ON_CPU1));
    assertEquals(1, sched.waiting());
    assertTrue(sched.restartMarked());
    end(one);
    assertEquals(List.of(2L), sectors(sched.blkMqSchedRestart(ON_CPU1, CpuTime.KWORKER, 0)));
  }
}

package blksim.queues.block.blk_mq_tag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BioSetSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.cost.ReferenceCosts;
import blksim.queues.fs.aio.KioCtx;
import blksim.queues.io_uring.CqRing;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.io_uring.SqRing;
import blksim.queues.io_uring.Sqe;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tag wait queue of {@code blk_mq_get_tag} (lib/sbitmap.c and block/blk-mq-tag.c 5.16;
 * docs/kernel.md sections 8, 10 and 11): who sleeps, how many a free wakes and when.
 */
class SbqWaitStateTest {
  private static final PathCosts COSTS = ReferenceCosts.of();

  private static final KernelFn[] SLEEP = {
    KernelFn.BLK_MQ_GET_TAG_FAILED, KernelFn.SBITMAP_PREPARE_TO_WAIT, KernelFn.SCHEDULE
  };

  private static final KernelFn[] NOTHING = {};

  /** The first task of CPU 0, and of CPU 1. */
  private static final TaskOnCpu ON_CPU0 = new TaskOnCpu(0, 0);

  private static final TaskOnCpu ON_CPU1 = new TaskOnCpu(1, 0);

  private final Charger charger = new Charger(COSTS, "test");

  /** The tags, all taken. */
  private static Tags full(int depth) {
    Tags tags = new Tags(depth, 2);
    for (int i = 0; i < depth; i++) {
      tags.get(0);
    }
    return tags;
  }

  private SbqWaitState<String> waits(int depth) {
    return new SbqWaitState<>(full(depth), charger);
  }

  private static List<Bio> bios() {
    return List.of(Bio.onStack(0));
  }

  private static void sleep(SbqWaitState<String> w, String who, long atPs) {
    w.blkMqGetTagSleep(ON_CPU0, CpuTime.SUBMIT, who, bios(), atPs, NOTHING);
  }

  private static List<String> woken(SbqWaitState.WakeUp<String> w) {
    List<String> out = new ArrayList<>();
    for (SbqWaitState.Woken<String> k : w.woken()) {
      out.add(k.waiter());
    }
    return out;
  }

  private List<String> free(SbqWaitState<String> w, int freed, long t) {
    return woken(w.sbitmapQueueWakeUp(1, CpuTime.IRQ, freed, t));
  }

  @Test
  void wakeBatchShouldBeTheDepthOverTheEightWaitQueuesFromOneToEight() {
    assertEquals(1, SbqWaitState.sbqCalcWakeBatch(2));
    assertEquals(1, SbqWaitState.sbqCalcWakeBatch(8));
    assertEquals(2, SbqWaitState.sbqCalcWakeBatch(16));
    assertEquals(4, SbqWaitState.sbqCalcWakeBatch(32));
    assertEquals(8, SbqWaitState.sbqCalcWakeBatch(64));
    assertEquals(8, SbqWaitState.sbqCalcWakeBatch(1024), "at most SBQ_WAKE_BATCH");
    assertEquals(4, waits(32).wakeBatch());
  }

  @Test
  void sleepersShouldBeWokenWakeBatchAtATimeInTheOrderTheySlept() {
    SbqWaitState<String> w = waits(32);
    for (String who : List.of("a", "b", "c", "d", "e")) {
      sleep(w, who, 0);
    }
    assertEquals(List.of(), free(w, 3, 10), "wait_cnt counts down from wake_batch");
    assertEquals(List.of("a", "b", "c", "d"), free(w, 1, 20), "the fourth free wakes four");
    assertEquals(1, w.asleep());
    assertEquals(List.of(), free(w, 3, 30));
    assertEquals(List.of("e"), free(w, 1, 40));
    assertEquals(0, w.asleep());
  }

  @Test
  void freesWithNoOneAsleepShouldNotCountTowardAWake() {
    SbqWaitState<String> w = waits(32);
    assertEquals(List.of(), free(w, 10, 0));
    sleep(w, "a", 0);
    assertEquals(List.of(), free(w, 3, 10), "the count starts at wake_batch when one sleeps");
    assertEquals(List.of("a"), free(w, 1, 20));
  }

  @Test
  void eachWakeShouldBeATryToWakeUpChargedToTheFreeingCpu() {
    SbqWaitState<String> w = waits(8);
    sleep(w, "a", 0);
    SbqWaitState.WakeUp<String> up = w.sbitmapQueueWakeUp(1, CpuTime.IRQ, 1, 500);
    assertEquals(COSTS.callPs(KernelFn.TRY_TO_WAKE_UP), up.ps());
    assertEquals(1, charger.ledger().steps(1).get("try_to_wake_up").calls());
    assertEquals(up.ps(), charger.ledger().time(1, CpuTime.IRQ));
    assertEquals(500 + up.ps(), up.woken().get(0).atPs(), "woken once the wake is done");
  }

  @Test
  void aTaskShouldNotBeWokenBeforeItSlept() {
    SbqWaitState<String> w = waits(8);
    long slept = w.blkMqGetTagSleep(ON_CPU0, CpuTime.SUBMIT, "a", bios(), 1_000_000, SLEEP);
    assertEquals(1_000_000 + pathPs(SLEEP), slept, "the sleep's path is charged to the sleeper");
    assertEquals(pathPs(SLEEP), charger.ledger().time(0, CpuTime.SUBMIT));
    SbqWaitState.WakeUp<String> up = w.sbitmapQueueWakeUp(1, CpuTime.IRQ, 1, 0);
    assertEquals(slept, up.woken().get(0).atPs());
  }

  @Test
  void aWokenTaskThatFindsNoTagAgainShouldSleepBehindTheOthers() {
    SbqWaitState<String> w = waits(8);
    sleep(w, "a", 0);
    sleep(w, "b", 0);
    assertEquals(List.of("a"), free(w, 1, 10));
    // a retries blk_mq_get_tag; another task took the freed tag, so it sleeps again
    sleep(w, "a", 20);
    assertEquals(3, w.sleeps(), "each sleep counted");
    assertEquals(List.of("b"), free(w, 1, 30));
    assertEquals(List.of("a"), free(w, 1, 40));
  }

  @Test
  void aTaskWokenBeforeItsPlugFlushIsQueuedShouldLearnItWhenItSleeps() {
    SbqWaitState<String> w = waits(8);
    List<Bio> rest = bios();
    w.prepareToWaitBeforeFlush("a", ON_CPU0, rest, 0);
    assertEquals(1, w.flushing());
    assertEquals(List.of(), free(w, 1, 10), "on the wait queue already, woken, but not told yet");
    SbqWaitState.FlushSleep s = w.sleepsAfterFlush(ON_CPU0, CpuTime.SUBMIT, 100, false, SLEEP);
    assertTrue(s.woken(), "schedule() finds it runnable");
    assertEquals(rest, s.bios());
    assertEquals(100 + pathPs(SLEEP), s.atPs(), "asleep once blk_mq_get_tag's sleep is charged");
    assertEquals(0, w.flushing());
    assertEquals(0, w.asleep());
  }

  private static long pathPs(KernelFn[] path) {
    long ps = 0;
    for (KernelFn fn : path) {
      ps += COSTS.callPs(fn);
    }
    return ps;
  }

  @Test
  void aTaskNotWokenBeforeItsFlushShouldSleepFromTheFlushOn() {
    SbqWaitState<String> w = waits(8);
    w.prepareToWaitBeforeFlush("a", ON_CPU0, bios(), 0);
    SbqWaitState.FlushSleep s =
        w.sleepsAfterFlush(ON_CPU0, CpuTime.SUBMIT, 5_000_000, false, SLEEP);
    assertFalse(s.woken());
    assertEquals(1, w.asleep());
    SbqWaitState.WakeUp<String> up = w.sbitmapQueueWakeUp(1, CpuTime.IRQ, 1, 10);
    assertEquals(s.atPs(), up.woken().get(0).atPs(), "no wake before the sleep it ends");
  }

  @Test
  void aTaskThatDidNotWaitShouldNotSleepAfterItsFlush() {
    SbqWaitState<String> w = waits(8);
    assertNull(w.sleepsAfterFlush(ON_CPU0, CpuTime.SUBMIT, 0, false, SLEEP));
  }

  @Test
  void aFlushThatEndedRequestsBeforeATagSleepShouldBreakTheBooks() {
    SbqWaitState<String> w = waits(8);
    w.prepareToWaitBeforeFlush("a", ON_CPU0, bios(), 0);
    assertThrows(
        InvariantBroken.class, () -> w.sleepsAfterFlush(ON_CPU0, CpuTime.SUBMIT, 0, true, SLEEP));
  }

  @Test
  void aSpinnerShouldTryTheTagWhenOneIsFreedBeforeItsSpinEnds() {
    SbqWaitState<String> w = waits(8);
    assertFalse(w.spin("a", 100, 7), "no tag free: it spins");
    assertFalse(w.spin("b", 10, 8));
    assertEquals(List.of(), w.sbitmapQueueWakeUp(1, CpuTime.IRQ, 0, 5).spinsEnded());
    List<SbqWaitState.SpinEnded<String>> ended =
        w.sbitmapQueueWakeUp(1, CpuTime.IRQ, 1, 50).spinsEnded();
    assertEquals(List.of(new SbqWaitState.SpinEnded<>("a", 50, 7)), ended, "b's spin was over");
    assertEquals(List.of(), w.sbitmapQueueWakeUp(1, CpuTime.IRQ, 1, 60).spinsEnded());
  }

  @Test
  void aSpinnerWithATagFreeShouldGetItAtOnce() {
    Tags tags = new Tags(8, 1);
    SbqWaitState<String> w = new SbqWaitState<>(tags, charger);
    assertTrue(w.spin("a", 100, 1));
    assertEquals(List.of(), w.sbitmapQueueWakeUp(0, CpuTime.IRQ, 1, 50).spinsEnded());
  }

  @Test
  void onlyBiosWithoutReqNowaitOfSyncAioAndIoWqIssuesShouldSleepForATag() {
    SbqWaitState<String> w = waits(8);
    Bio sync = Bio.onStack(0);
    assertTrue(w.blocks(sync), "a sync read's bio has no REQ_NOWAIT");
    sync.setNowait();
    assertFalse(w.blocks(sync));
    BioSet set = new BioSet("test", new BioSetSettings(true, 512, 64, 4, 2, 32), 1);
    Bio aio = set.bioAllocBioset(0, false, 0).bio();
    aio.setOwner(new KioCtx(4).getReq(new Sqe(Sqe.IORING_OP_READ, 0, 0, 0, 512, 0, 0)));
    assertTrue(w.blocks(aio), "io_submit's read");
    SqRing sq = new SqRing(2);
    IoRingCtx ctx = new IoRingCtx(sq, new CqRing(2));
    sq.tryClaim(new Sqe(Sqe.IORING_OP_READ, 0, 0, 0, 512, 0, 0));
    sq.publish();
    Bio uring = set.bioAllocBioset(0, false, 0).bio();
    uring.setOwner(ctx.submitSqe());
    assertTrue(w.blocks(uring), "io-wq's issue: neither REQ_NOWAIT nor polled");
    uring.setPolled();
    assertFalse(w.blocks(uring), "polled async I/O: bio_set_polled sets REQ_NOWAIT");
  }

  @Test
  void aCallShouldTellTheSpinsItEndedThenTheTasksItWokeInTheOrderTheySlept() {
    SbqWaitState<String> w = waits(8);
    sleep(w, "a", 0);
    sleep(w, "b", 0);
    assertFalse(w.spin("s", 1_000, 3));
    SbqWaitState.Caller<String> call = w.caller("freer", ON_CPU1, CpuTime.IRQ);
    long ps = call.sbitmapQueueWakeUp(2, 100);
    assertEquals(2 * COSTS.callPs(KernelFn.TRY_TO_WAKE_UP), ps, "one try_to_wake_up a task");
    List<SbqWaitState.Answer<String>> told = call.told();
    assertEquals(new SbqWaitState.SpinEnded<>("s", 100, 3), told.get(0));
    assertEquals(List.of("s", "a", "b"), told.stream().map(SbqWaitState.Answer::waiter).toList());
  }

  @Test
  void aCallsOwnTagSleepShouldBeToldWithTheBiosItStillSubmits() {
    SbqWaitState<String> w = waits(8);
    SbqWaitState.Caller<String> call = w.caller("a", ON_CPU0, CpuTime.SUBMIT);
    List<Bio> rest = bios();
    call.blkMqGetTagSleep(rest, 1_000, SLEEP);
    assertEquals(
        List.of(new SbqWaitState.Slept<>("a", 1_000 + pathPs(SLEEP), rest)),
        call.told(),
        "io_schedule once blk_mq_get_tag's path is charged");
    assertEquals(1, w.asleep());
  }

  @Test
  void aTaskWokenBeforeItsFlushShouldBeToldItSleptThenThatItWasWoken() {
    SbqWaitState<String> w = waits(8);
    SbqWaitState.Caller<String> call = w.caller("a", ON_CPU0, CpuTime.SUBMIT);
    List<Bio> rest = bios();
    call.prepareToWaitBeforeFlush(rest, 0);
    assertEquals(List.of(), call.told(), "not asleep before the flush");
    w.caller("freer", ON_CPU1, CpuTime.IRQ).sbitmapQueueWakeUp(1, 10);
    assertTrue(call.sleepsAfterFlush(100, false, SLEEP));
    long at = 100 + pathPs(SLEEP);
    assertEquals(
        List.of(new SbqWaitState.Slept<>("a", at, rest), new SbqWaitState.Woken<>("a", at)),
        call.told());
    assertFalse(
        w.caller("b", new TaskOnCpu(0, 1), CpuTime.SUBMIT).sleepsAfterFlush(0, false, SLEEP),
        "a task that did not wait returns from its flush");
  }

  /** The second task of CPU 0: it shares the CPU with {@link #ON_CPU0}. */
  private static final TaskOnCpu SIBLING = new TaskOnCpu(0, 1);

  private static void sleep(SbqWaitState<String> w, TaskOnCpu task, String who, long atPs) {
    w.blkMqGetTagSleep(task, CpuTime.SUBMIT, who, bios(), atPs, NOTHING);
  }

  /**
   * {@code blk_mq_get_tag} puts each sleeping task on the wait queue with a wait entry of its own
   * ({@code DEFINE_SBQ_WAIT} on its stack, {@code sbitmap_prepare_to_wait}), and {@code wake_up_nr}
   * wakes the entries' tasks in order: two tasks of one CPU sleep, and are woken, each for itself.
   */
  @Test
  void eachTaskOfACpuShouldSleepOnItsOwnWaitEntryAndBeWokenForItsOwnTag() {
    SbqWaitState<String> w = waits(8);
    sleep(w, ON_CPU0, "a", 0);
    sleep(w, SIBLING, "b", 10);
    assertEquals(2, w.asleep(), "the second sleeper of CPU 0 does not replace the first");
    assertEquals(List.of("a"), free(w, 1, 20), "wake_batch 1: the first tag freed wakes a");
    assertEquals(List.of("b"), free(w, 1, 30), "the next wakes b");
    assertEquals(0, w.asleep());
  }

  /**
   * A task that found no tag with requests in its plug is on the wait queue before its flush
   * ({@code sbitmap_prepare_to_wait}, then {@code schedule()}'s {@code blk_flush_plug}); a free
   * meanwhile wakes the task of the first wait entry ({@code autoremove_wake_function} wakes {@code
   * wait->private}): when that is another task of the same CPU, asleep already, that task is woken,
   * and the flushing one still sleeps after its flush.
   */
  @Test
  void aWakeShouldGoToTheTaskOfTheWaitEntryNotToAnotherOfItsCpuThatFlushesItsPlug() {
    SbqWaitState<String> w = waits(8);
    sleep(w, SIBLING, "b", 0);
    SbqWaitState.Caller<String> a = w.caller("a", ON_CPU0, CpuTime.SUBMIT);
    a.prepareToWaitBeforeFlush(bios(), 5);
    SbqWaitState.Caller<String> freer = w.caller("freer", ON_CPU1, CpuTime.IRQ);
    freer.sbitmapQueueWakeUp(1, 10);
    assertEquals(
        List.of("b"),
        freer.told().stream().map(SbqWaitState.Answer::waiter).toList(),
        "b, first on the wait queue, is told it was woken");
    assertEquals(1, w.flushing(), "a's flush still under way");
    assertTrue(a.sleepsAfterFlush(100, false, SLEEP));
    assertEquals(1, a.told().size(), "a sleeps, not woken by b's wake");
    assertTrue(a.told().get(0) instanceof SbqWaitState.Slept<String>);
    assertEquals(1, w.asleep());
    assertEquals(List.of("a"), free(w, 1, 200), "the next free wakes a");
  }

  /**
   * A task that sleeps once its plug's flush is queued is woken no earlier than that sleep; another
   * task of its CPU, asleep before it, is woken by a free when the free comes ({@code
   * try_to_wake_up} of its own entry).
   */
  @Test
  void aTaskSleepingAfterItsFlushShouldNotDelayTheWakeOfAnotherOfItsCpuAsleepBeforeIt() {
    SbqWaitState<String> w = waits(8);
    sleep(w, SIBLING, "b", 0);
    w.prepareToWaitBeforeFlush("a", ON_CPU0, bios(), 0);
    SbqWaitState.FlushSleep s =
        w.sleepsAfterFlush(ON_CPU0, CpuTime.SUBMIT, 5_000_000, false, SLEEP);
    assertFalse(s.woken());
    SbqWaitState.WakeUp<String> up = w.sbitmapQueueWakeUp(1, CpuTime.IRQ, 1, 10);
    assertEquals(new SbqWaitState.Woken<>("b", 10 + up.ps()), up.woken().get(0));
    assertEquals(
        s.atPs(),
        w.sbitmapQueueWakeUp(1, CpuTime.IRQ, 1, 20).woken().get(0).atPs(),
        "a, woken no earlier than its own sleep");
  }
}

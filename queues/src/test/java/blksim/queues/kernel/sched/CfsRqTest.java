package blksim.queues.kernel.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.time.VirtualTime;
import org.junit.jupiter.api.Test;

class CfsRqTest {
  private static final long MS = VirtualTime.ps(1_000_000);
  private static final long US = VirtualTime.ps(1_000);

  @Test
  void getUpdateSysctlFactorIsOnePlusIlog2OfAtMostEightCpus() {
    assertEquals(1, CfsRq.factor(1));
    assertEquals(2, CfsRq.factor(2));
    assertEquals(2, CfsRq.factor(3));
    assertEquals(3, CfsRq.factor(4));
    assertEquals(4, CfsRq.factor(8));
    assertEquals(4, CfsRq.factor(64));
  }

  @Test
  void schedSliceSharesTheLatencyAmongTheRunnableAtLeastTheMinimumGranularity() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0);
    assertEquals(6 * MS, rq.schedSlice(a), "alone: the whole sysctl_sched_latency");
    SchedEntity b = rq.fork("b", 0);
    assertEquals(3 * MS, rq.schedSlice(a), "two: half");
    assertEquals(3 * MS, rq.schedSlice(b));
    for (int i = 2; i < CfsRq.SCHED_NR_LATENCY; i++) {
      rq.fork("t" + i, 0);
    }
    assertEquals(750 * US, rq.schedSlice(a), "sched_nr_latency tasks: one granularity each");
    rq.fork("ninth", 0);
    assertEquals(
        750 * US,
        rq.schedSlice(a),
        "more: __sched_period grows, nr * sysctl_sched_min_granularity");
    CfsRq eight = new CfsRq(8);
    assertEquals(24 * MS, eight.schedSlice(eight.fork("x", 0)), "8 CPUs: factor 4");
  }

  @Test
  void theScaledTunablesFollowTheFactor() {
    CfsRq rq = new CfsRq(4); // factor 3
    SchedEntity a = rq.fork("a", 0);
    rq.fork("b", 0);
    assertEquals(9 * MS, rq.schedSlice(a), "18 ms of latency between two");
  }

  @Test
  void aNewTaskStartsASliceBehindMinVruntime() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0);
    assertEquals(6 * MS, a.vruntime(), "START_DEBIT: min_vruntime 0 plus its slice alone");
    assertSame(a, rq.schedule(0));
    rq.tick(10 * MS);
    assertEquals(16 * MS, rq.minVruntime(), "min_vruntime follows the only task");
    SchedEntity b = rq.fork("b", 10 * MS);
    assertEquals(19 * MS, b.vruntime(), "min_vruntime plus its slice of two");
    assertFalse(rq.needResched(), "behind in virtual time: it does not preempt");
  }

  @Test
  void threadsForkedOnTheParentsCpuAndMovedHereHaveTheDebitTheyHadThere() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.forkElsewhere("a", 0, 1);
    SchedEntity b = rq.forkElsewhere("b", 0, 1);
    SchedEntity c = rq.forkElsewhere("c", 0, 1);
    assertEquals(3 * MS, a.vruntime(), "the slice of two there (the parent and it)");
    assertEquals(a.vruntime(), b.vruntime(), "whatever this run queue holds");
    assertEquals(a.vruntime(), c.vruntime());
    assertSame(a, rq.schedule(0), "the tie to the first queued");
    assertEquals(6 * MS, new CfsRq(1).forkElsewhere("alone", 0, 0).vruntime());
    assertThrows(IllegalArgumentException.class, () -> rq.forkElsewhere("x", 0, -1));
  }

  @Test
  void aWakingTaskIsPlacedAtMostHalfTheLatencyBeforeMinVruntime() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0);
    SchedEntity b = rq.fork("b", 0);
    assertSame(b, rq.schedule(0), "b, forked second, has the smaller debit");
    rq.sleep(1 * MS);
    assertSame(a, rq.schedule(1 * MS));
    rq.tick(41 * MS); // a runs 40 ms alone
    long aV = a.vruntime();
    rq.wakeUp(b, 41 * MS);
    assertEquals(aV - 3 * MS, b.vruntime(), "GENTLE_FAIR_SLEEPERS: min_vruntime - latency/2");
    assertTrue(rq.needResched(), "3 ms behind, more than a wakeup granularity: it preempts");

    CfsRq brief = new CfsRq(1);
    SchedEntity c = brief.fork("c", 0);
    SchedEntity d = brief.fork("d", 0);
    assertSame(d, brief.schedule(0));
    brief.sleep(100 * US);
    assertSame(c, brief.schedule(100 * US));
    long dV = d.vruntime();
    brief.wakeUp(d, 200 * US);
    assertEquals(dV, d.vruntime(), "a short sleep keeps its vruntime: never placed backwards");
    assertSame(c, brief.curr(), "the woken task waits for c's point of preemption");
  }

  @Test
  void checkPreemptWakeupNeedsMoreThanTheWakeupGranularity() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0);
    SchedEntity b = rq.fork("b", 0);
    rq.schedule(0); // a, at 6 ms of vruntime; b at 3 ms... b is leftmost
    assertSame(b, rq.curr(), "b was placed with the smaller slice debit");
    rq.sleep(0);
    assertSame(a, rq.schedule(0));
    rq.tick(4 * MS); // a at 10 ms; min_vruntime 10 ms
    rq.wakeUp(b, 4 * MS);
    assertEquals(7 * MS, b.vruntime(), "placed at min_vruntime - latency/2, ahead of its 3 ms");
    assertTrue(rq.needResched(), "10 - 7 = 3 ms > 1 ms");

    CfsRq within = new CfsRq(1);
    SchedEntity e = within.fork("e", 0);
    SchedEntity f = within.fork("f", 0);
    within.schedule(0); // f at 3 ms
    within.tick(2500 * US); // f at 5.5 ms
    within.sleep(2500 * US);
    within.schedule(2500 * US); // e at 6 ms
    within.wakeUp(f, 2500 * US);
    assertFalse(within.needResched(), "0.5 ms behind: within the granularity");
    assertSame(e, within.curr());
  }

  @Test
  void checkPreemptTickEndsASliceOnlyWhenDeltaExecIsMoreThanIt() {
    CfsRq rq = new CfsRq(1);
    rq.fork("a", 0);
    rq.fork("b", 0);
    SchedEntity first = rq.schedule(0);
    rq.tick(3 * MS);
    assertFalse(rq.needResched(), "exactly its slice: not more");
    rq.tick(3 * MS + 1);
    assertTrue(rq.needResched(), "delta_exec > ideal_runtime");
    SchedEntity second = rq.schedule(3 * MS + 1);
    assertFalse(second == first, "the other is leftmost now");
    assertEquals(1, first.nivcsw(), "switched out runnable: involuntary");
    assertFalse(rq.needResched(), "__schedule clears TIF_NEED_RESCHED");
  }

  @Test
  void checkPreemptTickPreemptsATaskASliceAheadOfTheLeftmostAfterTheMinimumGranularity() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0); // 6 ms
    SchedEntity b = rq.fork("b", 0); // 3 ms
    assertSame(b, rq.schedule(0));
    rq.tick(4 * MS);
    rq.sleep(4 * MS); // b at 7 ms
    assertSame(a, rq.schedule(4 * MS));
    rq.sleep(6 * MS); // a at 8 ms
    assertNull(rq.schedule(6 * MS));
    rq.wakeUp(a, 6 * MS);
    assertSame(a, rq.schedule(6 * MS), "picked afresh at 6 ms");
    rq.wakeUp(b, 6 * MS);
    assertEquals(7 * MS, b.vruntime());
    assertFalse(rq.needResched(), "1 ms behind: not more than the wakeup granularity");
    rq.tick(8 * MS);
    assertFalse(rq.needResched(), "2 ms run of a 3 ms slice, exactly 3 ms ahead: not more");
    rq.tick(8 * MS + 1);
    assertTrue(rq.needResched(), "below its slice, but more than a slice ahead of the leftmost");
    assertSame(b, rq.schedule(8 * MS + 1));
  }

  @Test
  void twoAlwaysRunnableTasksShareTheCpuEquallyAtTheTicks() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0);
    SchedEntity b = rq.fork("b", 0);
    rq.schedule(0);
    long tick = 4 * MS; // HZ=250
    for (long t = tick; t <= 400 * MS; t += tick) {
      rq.tick(t);
      if (rq.needResched()) {
        rq.schedule(t);
      }
    }
    rq.tick(400 * MS);
    assertEquals(400 * MS, a.sumExecRuntime() + b.sumExecRuntime(), "no time lost");
    assertEquals(a.sumExecRuntime(), b.sumExecRuntime(), "a tick each, in turn");
    assertEquals(400 * MS, a.sumExecRuntime() + a.runDelay(), "never asleep: running or waiting");
    assertEquals(400 * MS, b.sumExecRuntime() + b.runDelay());
    assertEquals(50, a.pcount() + a.nivcsw() - 50, "each pick of a ends in a preemption");
    assertEquals(0, a.nvcsw() + b.nvcsw());
    assertEquals(100, rq.nrSwitches(), "one at each tick");
  }

  @Test
  void aTieGoesToTheTaskQueuedFirst() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0);
    rq.schedule(0);
    rq.sleep(0);
    SchedEntity b = rq.fork("b", 0);
    rq.wakeUp(a, 0);
    assertEquals(a.vruntime(), b.vruntime(), "6 ms each");
    assertSame(b, rq.schedule(0), "queued first");
  }

  @Test
  void sleepAndRunDelayAreCounted() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0);
    SchedEntity b = rq.fork("b", 0);
    assertSame(b, rq.schedule(0));
    rq.sleep(2 * MS);
    assertSame(a, rq.schedule(2 * MS));
    assertEquals(2 * MS, a.runDelay(), "runnable from its fork to its pick");
    assertEquals(1, b.nvcsw(), "slept: voluntary");
    rq.exit(5 * MS);
    assertNull(rq.schedule(5 * MS), "nothing runnable: idle");
    assertEquals(SchedEntity.State.DEAD, a.state());
    assertEquals(0, rq.nrRunning());
    assertEquals(2, rq.nrSwitches());
    assertEquals(3 * MS, a.sumExecRuntime());
  }

  @Test
  void wakingARunnableTaskOrSleepingWithNoneRunningIsABug() {
    CfsRq rq = new CfsRq(1);
    SchedEntity a = rq.fork("a", 0);
    assertThrows(IllegalStateException.class, () -> rq.wakeUp(a, 0));
    assertThrows(IllegalStateException.class, () -> rq.sleep(0));
    assertThrows(IllegalArgumentException.class, () -> new CfsRq(0));
  }

  @Test
  void aTickWouldPreemptAsTheTickItselfWouldWithoutChangingAnything() {
    CfsRq rq = new CfsRq(1);
    rq.fork("a", 0);
    rq.fork("b", 0);
    SchedEntity a = rq.schedule(0);
    long slice = rq.schedSlice(a);
    assertFalse(rq.tickWouldPreempt(slice), "exactly its slice: not more");
    assertTrue(rq.tickWouldPreempt(slice + 1), "delta_exec > ideal_runtime");
    assertEquals(0, a.sumExecRuntime(), "nothing brought up to date");
    assertFalse(rq.needResched());
    rq.tick(slice + 1);
    assertTrue(rq.needResched(), "the tick itself agrees");
  }

  /**
   * Why ksoftirqd, kblockd's and kdmflush's kworkers are not entities of the run queue (see
   * docs/model.md, scheduling): a task that sleeps between short runs wakes behind the running task
   * by more than the wakeup granularity and preempts it at its next point of scheduling, every
   * time, as long as it takes less of the CPU than the task it wakes beside. Past that share it
   * would wait for the tick, which the model does not follow.
   */
  @Test
  void aShortSleeperPreemptsAtEachWakeUpWhileItTakesLessOfTheCpuThanTheTask() {
    assertEquals(0, missedWakeUps(1000 * US, 20 * US), "ksoftirqd's few microseconds per raise");
    assertEquals(0, missedWakeUps(100 * US, 90 * US), "just under half the CPU");
    assertTrue(
        missedWakeUps(100 * US, 200 * US) > 0,
        "two thirds of the CPU: its vruntime overtakes the task's and it waits");
  }

  /**
   * A task that runs {@code run} between wake-ups of a sleeper that then runs {@code burst}: how
   * many of 200 wake-ups do not preempt it. The sleeper was made long before and has slept since
   * (ksoftirqd at boot): the task has run 10 ms when it first wakes.
   */
  private static int missedWakeUps(long run, long burst) {
    CfsRq rq = new CfsRq(1);
    SchedEntity sleeper = rq.fork("ksoftirqd/0", 0);
    assertSame(sleeper, rq.schedule(0));
    rq.sleep(0);
    SchedEntity task = rq.fork("task", 0);
    assertSame(task, rq.schedule(0));
    long now = 10 * MS;
    int missed = 0;
    for (int i = 0; i < 200; i++) {
      now += run;
      rq.wakeUp(sleeper, now);
      if (!rq.needResched()) {
        missed++;
      }
      while (rq.schedule(now) != sleeper) {
        now += run; // not asked to reschedule: the task runs on until the sleeper is leftmost
      }
      now += burst;
      rq.sleep(now);
      assertSame(task, rq.schedule(now));
    }
    return missed;
  }
}

package blksim.queues.kernel.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.time.VirtualTime;
import org.junit.jupiter.api.Test;

class RqTest {
  private static final long MS = VirtualTime.ps(1_000_000);

  /** HZ=250 from 0, one CPU: 3 ms slices for two tasks. */
  private static Rq rq() {
    return new Rq(1, new SchedTick(4 * MS, 0));
  }

  @Test
  void theClockNeverGoesBack() {
    Rq rq = rq();
    assertEquals(5 * MS, rq.clock(5 * MS));
    assertEquals(5 * MS, rq.clock(2 * MS), "an earlier time reads as the later one");
  }

  @Test
  void theFirstTickPastTheSliceAsksTheRunningTaskToReschedule() {
    Rq rq = rq();
    SchedEntity a = rq.forkPinned("a", 0);
    SchedEntity b = rq.forkPinned("b", 0);
    assertSame(a, rq.schedule(0), "the same debit: the first queued");
    assertFalse(rq.needResched(3 * MS), "no tick yet after 0");
    assertTrue(rq.needResched(4 * MS), "the tick at 4 ms: 4 ms run of a 3 ms slice");
    assertSame(b, rq.schedule(4 * MS));
    assertFalse(rq.needResched(4 * MS), "a tick is seen once");
  }

  @Test
  void aTaskAloneIsNeverAskedToReschedule() {
    Rq rq = rq();
    rq.forkPinned("a", 0);
    rq.schedule(0);
    assertFalse(rq.needResched(100 * MS));
  }

  @Test
  void aTickWhileOneTaskRanAloneDoesNothingLater() {
    Rq rq = rq();
    SchedEntity a = rq.forkPinned("a", 0);
    assertSame(a, rq.schedule(0));
    // a runs alone through the ticks at 4 and 8 ms; b comes at 9 ms, a slice behind it
    rq.forkPinned("b", 9 * MS);
    assertFalse(rq.needResched(11 * MS), "the tick at 8 ms came while a ran alone");
    assertTrue(rq.needResched(12 * MS), "the tick at 12 ms, with both runnable: 12 ms of 3");
  }

  @Test
  void wakingATaskThatDoesNotSleepChangesNothing() {
    Rq rq = rq();
    SchedEntity a = rq.forkPinned("a", 0);
    rq.wakeUp(a, MS);
    assertEquals(1, rq.nrRunning());
  }

  @Test
  void theTickThatEndsTheSliceIsTheFirstStrictlyMoreThanASliceAfterThePick() {
    long phase = MS / 4; // a quarter into a 1 ms tick
    Rq rq = new Rq(1, new SchedTick(MS, phase));
    rq.forkPinned("a", 0);
    rq.forkPinned("b", 0);
    rq.schedule(phase - 1);
    assertEquals(phase + 3 * MS, rq.reschedTick(phase - 1), "delta_exec is 3 ms + 1 ps there");
    Rq exact = new Rq(1, new SchedTick(MS, phase));
    exact.forkPinned("a", 0);
    exact.forkPinned("b", 0);
    exact.schedule(phase);
    assertEquals(phase + 4 * MS, exact.reschedTick(phase), "exactly the slice: not more");
    assertEquals(phase + 4 * MS, exact.reschedTick(phase + MS - 1));
    assertFalse(exact.needResched(phase + 4 * MS - 1), "not before the tick it names");
    assertTrue(exact.needResched(phase + 4 * MS), "and from it on");
  }

  @Test
  void theSliceGrowsWithTheMachinesCpusAsTheTunablesScale() {
    long[] slices = new long[65];
    for (int cpus : new int[] {1, 2, 4, 7, 8, 64}) {
      Rq rq = new Rq(cpus, new SchedTick(MS, 0));
      rq.forkPinned("a", 0);
      rq.forkPinned("b", 0);
      rq.schedule(0);
      slices[cpus] = rq.reschedTick(0) - MS; // the first tick strictly past the slice
    }
    assertEquals(3 * MS, slices[1], "1 CPU: factor 1, half of 6 ms");
    assertEquals(6 * MS, slices[2], "2 CPUs: factor 2");
    assertEquals(9 * MS, slices[4], "4 and 7 CPUs: factor 3");
    assertEquals(9 * MS, slices[7]);
    assertEquals(12 * MS, slices[8], "8 CPUs and more: factor 4");
    assertEquals(12 * MS, slices[64]);
  }

  @Test
  void aTaskAloneHasNoTickThatEndsItsSlice() {
    Rq rq = rq();
    rq.forkPinned("a", 0);
    rq.schedule(0);
    assertEquals(Long.MAX_VALUE, rq.reschedTick(0));
  }

  @Test
  void aWakeUpThatPreemptsIsSeenAtOnce() {
    Rq rq = rq();
    SchedEntity a = rq.forkPinned("a", 0);
    SchedEntity b = rq.forkPinned("b", 0);
    assertSame(a, rq.schedule(0));
    assertSame(b, rq.schedule(4 * MS));
    rq.dequeueCurr(5 * MS, false); // b sleeps; a runs on, far ahead of it
    assertSame(a, rq.schedule(5 * MS));
    rq.wakeUp(b, 20 * MS); // placed half a latency behind: more than a wakeup granularity
    assertEquals(20 * MS, rq.reschedTick(20 * MS), "check_preempt_wakeup asked already");
  }

  @Test
  void aTaskForkedHereStartsASliceBehindAndWaitsForTheRunningOnesSlice() {
    Rq rq = rq();
    SchedEntity a = rq.forkPinned("a", 0);
    assertSame(a, rq.schedule(0));
    // a task a runs makes one (an io-wq worker, made by its thread's first punt): START_DEBIT
    SchedEntity w = rq.fork("w", MS);
    assertFalse(rq.needResched(MS), "a new task does not preempt");
    assertEquals(2, rq.nrRunning());
    assertEquals(4 * MS, rq.reschedTick(MS), "a's 3 ms slice ends at the tick after it");
    assertSame(w, rq.schedule(4 * MS));
  }
}

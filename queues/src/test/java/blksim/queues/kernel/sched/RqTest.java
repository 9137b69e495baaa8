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
}

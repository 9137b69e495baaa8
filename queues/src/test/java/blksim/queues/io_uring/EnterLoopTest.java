package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.books.InvariantBroken;
import blksim.queues.io_uring.EnterLoop.Phase;
import org.junit.jupiter.api.Test;

/** io_uring_enter's loop as a state machine: one call out at a time, and its decisions. */
class EnterLoopTest {
  private final EnterLoop loop = new EnterLoop("cpu0");
  private final SqRing sq = new SqRing(8);
  private final IoRingCtx ring = new IoRingCtx(sq, new CqRing(8));

  private IoKiocb inFlight() {
    sq.tryClaim(new Sqe(Sqe.IORING_OP_READ, 0, 0, 0, 512, 0, 0));
    sq.publish();
    IoKiocb req = ring.submitSqe();
    ring.iopollReqIssued(req);
    return req;
  }

  @Test
  void aCallShouldBeAnsweredBeforeTheNextIsMade() {
    loop.to(Phase.ALLOC_BIOS);
    assertTrue(loop.phase().callOut());
    assertThrows(InvariantBroken.class, () -> loop.to(Phase.POLL), "two calls out at once");
    assertThrows(InvariantBroken.class, () -> loop.answered(Phase.POLL), "the wrong answer");
    loop.answered(Phase.ALLOC_BIOS);
    assertEquals(Phase.RUNNING, loop.phase());
    assertFalse(loop.phase().callOut());
  }

  @Test
  void anIopollRingShouldPollOnlyWhenItAsksForEventsAndHasSomethingToPoll() {
    loop.enter(new EnterArgs(4, 4, true));
    assertEquals(EnterLoop.AfterSubmit.RETURN, loop.afterSubmit(true, ring), "nothing to poll");
    inFlight();
    assertEquals(EnterLoop.AfterSubmit.IOPOLL_CHECK, loop.afterSubmit(true, ring));
    loop.enter(new EnterArgs(4, 0, false));
    assertEquals(EnterLoop.AfterSubmit.RETURN, loop.afterSubmit(true, ring), "no events asked");
    assertEquals(EnterLoop.AfterSubmit.CQRING_WAIT, loop.afterSubmit(false, ring));
  }

  @Test
  void ioIopollCheckShouldPollUntilMinCompleteOrAnEmptyList() {
    loop.enter(new EnterArgs(2, 2, true));
    inFlight();
    assertTrue(loop.pollAgain(1, ring), "one of two events");
    assertFalse(loop.pollAgain(1, ring), "two of two");
    EnterLoop other = new EnterLoop("cpu1");
    other.enter(new EnterArgs(2, 2, true));
    IoRingCtx empty = new IoRingCtx(new SqRing(8), new CqRing(8));
    assertFalse(other.pollAgain(0, empty), "an empty list ends it");
  }

  @Test
  void ioCqringWaitShouldSleepForCompletionsItCanGetAndStopForThoseItCannot() {
    loop.enter(new EnterArgs(0, 1, true));
    assertEquals(EnterLoop.Wait.HANG, loop.cqringWait(ring), "waits for more than is out");
    inFlight();
    assertEquals(EnterLoop.Wait.SLEEP, loop.cqringWait(ring));
    loop.to(Phase.SLEEP);
    assertTrue(loop.wakeIfSleeping());
    assertFalse(loop.wakeIfSleeping(), "woken once");
    loop.switchedIn();
    assertEquals(Phase.RUNNING, loop.phase());
    assertFalse(loop.woken());
  }

  @Test
  void aMillionEmptyPollsInARowShouldBeCalledAStuckModel() {
    for (int i = 1; i < EnterLoop.MAX_EMPTY_POLLS; i++) {
      loop.foundNothing();
    }
    assertThrows(InvariantBroken.class, loop::foundNothing);
  }

  @Test
  void aLiveTaskSwitchesOnlyAtItsReturnAndAnEndedOneAtItsTeardownsCondResched() {
    assertTrue(loop.preemptibleAt(true), "exit_to_user_mode_loop");
    assertFalse(loop.preemptibleAt(false), "io_iopoll_check's might_sleep: it stops polling only");
    loop.exit();
    assertTrue(loop.preemptibleAt(false), "io_iopoll_try_reap_events' cond_resched");
  }
}

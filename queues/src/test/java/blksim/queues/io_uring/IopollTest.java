package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterLoop.Phase;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reaping on an IOPOLL ring without a CPU (fs/io_uring.c 5.16 {@code io_iopoll_check}, {@code
 * io_do_iopoll}, {@code io_iopoll_complete}; docs/kernel.md section 6).
 */
class IopollTest {
  /** A batch submitted and issued, and io_do_iopoll's first poll of it. */
  private record Issued(EnterCall.SubmitBios batch, EnterCall.PollBio poll) {
    Bio bio(int i) {
      return batch.bios().get(i);
    }

    IoKiocb req(int i) {
      return batch.reqs().get(i);
    }
  }

  /**
   * {@code n} reads submitted and issued, waiting for {@code minComplete}, up to the first poll.
   */
  private static Issued issued(RingHarness h, int n, int minComplete) {
    EnterCall.SubmitBios s = h.submitted(n, minComplete);
    h.enter.submitBioReturned(s.reqs(), List.of());
    EnterCall lock = h.enter.ioSubmitSqesReturned(s.atPs());
    assertInstanceOf(EnterCall.UringLock.class, lock, "io_iopoll_check's mutex_lock");
    EnterCall poll = h.enter.iopoll().ioDoIopoll(lock.atPs());
    return new Issued(s, assertInstanceOf(EnterCall.PollBio.class, poll));
  }

  /** The answer to {@code poll}: it ended {@code ended}; then their bio_put. */
  private EnterCall answer(RingHarness h, EnterCall poll, List<Bio> ended) {
    EnterCall.PollBio p = assertInstanceOf(EnterCall.PollBio.class, poll);
    assertSame(h.ring.iopollHead(), p.req(), "io_do_iopoll polls the head of the list");
    assertSame(p.req().kiocbPrivate(), p.bio(), "by its kiocb->private");
    EnterCall next = h.enter.iopoll().bioPolled(ended, p.atPs());
    if (ended.isEmpty()) {
      return next;
    }
    EnterCall.PutBios put = assertInstanceOf(EnterCall.PutBios.class, next);
    assertSame(ended, put.bios());
    return h.enter.iopoll().biosPut(put.atPs());
  }

  @Test
  void ioIopollCompleteShouldPostCqesOnlyForCompletedRequestsAtTheHeadOfTheIopollList() {
    RingHarness h = RingHarness.iopoll(8, 8);
    Issued io = issued(h, 3, 3);
    EnterCall next = answer(h, io.poll(), List.of(io.bio(1), io.bio(2)));
    assertEquals(0, h.cq.ready(), "completed requests behind one in flight wait");
    assertEquals(0, h.calls(KernelFn.IO_IOPOLL_COMPLETE));
    next = answer(h, next, List.of(io.bio(0)));
    assertEquals(3, h.cq.ready(), "then the whole prefix");
    assertEquals(3, h.calls(KernelFn.IO_IOPOLL_COMPLETE), "once a CQE");
    assertInstanceOf(EnterCall.Return.class, next, "three of three events");
  }

  @Test
  void ioIopollCheckShouldPollAgainWhileFewerThanMinCompleteEventsWereFound() {
    RingHarness h = RingHarness.iopoll(8, 8);
    Issued io = issued(h, 2, 2);
    EnterCall again = answer(h, io.poll(), List.of(io.bio(0)));
    assertInstanceOf(EnterCall.PollBio.class, again, "one of two: io_do_iopoll again");
    EnterCall done = answer(h, again, List.of(io.bio(1)));
    assertInstanceOf(EnterCall.Return.class, done, "two of two: it returns");
    assertEquals(Phase.RETURN, h.loop.phase());
  }

  @Test
  void ioIopollCheckShouldReturnOnceMinCompleteEventsWereFoundThoughMoreAreInFlight() {
    RingHarness h = RingHarness.iopoll(8, 8);
    Issued io = issued(h, 3, 1);
    assertInstanceOf(EnterCall.Return.class, answer(h, io.poll(), List.of(io.bio(0))));
    assertFalse(h.ring.iopollListEmpty(), "two still in flight for the next call");
  }

  @Test
  void needReschedShouldEndTheIopollCheckLoop() {
    RingHarness h = RingHarness.iopoll(8, 8);
    Issued io = issued(h, 2, 2);
    h.resched = true;
    EnterCall next = answer(h, io.poll(), List.of(io.bio(0)));
    assertInstanceOf(EnterCall.Return.class, next, "another task is to run: it returns");
    assertEquals(1, h.needReschedAsked);
  }

  @Test
  void needReschedShouldNotBeAskedOnceMinCompleteEventsWereFound() {
    RingHarness h = RingHarness.iopoll(8, 8);
    Issued io = issued(h, 1, 1);
    answer(h, io.poll(), List.of(io.bio(0)));
    assertEquals(0, h.needReschedAsked, "the tick it may see is not looked at");
  }

  @Test
  void aWokenKsoftirqdShouldEndTheIopollCheckLoop() {
    RingHarness h = RingHarness.iopoll(8, 8);
    Issued io = issued(h, 2, 2);
    h.ksoftirqd = true;
    assertInstanceOf(EnterCall.Return.class, answer(h, io.poll(), List.of(io.bio(0))));
    assertEquals(0, h.needReschedAsked);
  }

  @Test
  void aWokenKsoftirqdShouldRunAtIoIopollChecksMutexLockBeforeThePoll() {
    RingHarness h = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios s = h.submitted(1, 1);
    h.enter.submitBioReturned(s.reqs(), List.of());
    h.ksoftirqd = true;
    EnterCall resched = h.enter.ioSubmitSqesReturned(s.atPs());
    assertInstanceOf(EnterCall.Resched.class, resched);
    assertEquals(Phase.RESCHED, h.loop.phase());
    h.ksoftirqd = false;
    assertInstanceOf(EnterCall.UringLock.class, h.enter.iopoll().rescheduled(resched.atPs()));
  }

  @Test
  void aPollThatFindsNothingShouldChargeTheEmptyPassAndPollAgain() {
    RingHarness h = RingHarness.iopoll(8, 8);
    Issued io = issued(h, 1, 1);
    assertInstanceOf(EnterCall.PollBio.class, answer(h, io.poll(), List.of()));
    assertEquals(1, h.calls(KernelFn.IO_DO_IOPOLL_EMPTY));
    assertEquals(0, h.calls(KernelFn.IO_DO_IOPOLL));
    assertEquals(1, h.calls(KernelFn.BLKDEV_IOPOLL));
  }

  @Test
  void eachPollShouldChargeItsPassOnceAndEachBioItEndedOnce() {
    RingHarness h = RingHarness.iopoll(8, 8);
    Issued io = issued(h, 4, 4);
    long[] before = new long[Iopoll.IOPOLL_COMPLETE_PATH.length];
    for (int i = 0; i < before.length; i++) {
      before[i] = h.calls(Iopoll.IOPOLL_COMPLETE_PATH[i]);
    }
    answer(h, io.poll(), io.batch().bios());
    for (KernelFn fn : Iopoll.POLL_PATH) {
      assertEquals(1, h.calls(fn), fn.name());
    }
    for (KernelFn fn : IoRw.END_IO_PATH) {
      assertEquals(4, h.calls(fn), fn.name());
    }
    for (int i = 0; i < before.length; i++) {
      KernelFn fn = Iopoll.IOPOLL_COMPLETE_PATH[i];
      assertEquals(4, h.calls(fn) - before[i], "once a CQE: " + fn.name());
    }
  }

  @Test
  void ioDoIopollShouldStopAtAHeadAnotherCpuCompletedWithoutPolling() {
    RingHarness h = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios s = h.submitted(1, 1);
    h.enter.submitBioReturned(s.reqs(), List.of());
    EnterCall lock = h.enter.ioSubmitSqesReturned(s.atPs());
    h.ring.completeRwIopollElsewhere(s.reqs().get(0), RingHarness.BS);
    EnterCall next = h.enter.iopoll().ioDoIopoll(lock.atPs());
    assertInstanceOf(EnterCall.Return.class, next, "it flushed the CQE and has its event");
    assertEquals(1, h.cq.ready());
    assertEquals(1, h.calls(KernelFn.IO_DO_IOPOLL));
    assertEquals(0, h.calls(KernelFn.BLKDEV_IOPOLL), "no bio_poll");
  }

  @Test
  void ioCompleteRwIopollShouldCompleteAnotherTasksRingHereAndAnotherCpusElsewhere() {
    RingHarness h = RingHarness.iopoll(8, 8);
    IoUringEnter.Setup iopoll = new IoUringEnter.Setup(true, true, false);
    RingHarness sibling = new RingHarness(8, 8, iopoll, true, 1);
    RingHarness remote = new RingHarness(8, 8, iopoll, true, 2);
    h.siblings.put(1, sibling.ring);
    Issued mine = issued(h, 1, 1);
    Issued theirs = issued(sibling, 1, 1);
    Issued far = issued(remote, 1, 1);
    EnterCall.PutBios put =
        assertInstanceOf(
            EnterCall.PutBios.class,
            h.enter.iopoll().bioPolled(List.of(mine.bio(0), theirs.bio(0), far.bio(0)), 0));
    assertEquals(IoKiocb.State.COMPLETED, mine.req(0).state());
    assertEquals(IoKiocb.State.COMPLETED, theirs.req(0).state(), "a task of this CPU");
    assertEquals(IoKiocb.State.IN_FLIGHT, far.req(0).state(), "its own CPU completes it");
    assertEquals(1, put.elsewhere().size(), "one other CPU's ring");
    ForeignCompletions.ToRing told = put.elsewhere().get(0);
    assertEquals(2, told.ring());
    assertEquals(List.of(far.req(0)), told.completions().stream().map(d -> d.req()).toList());
    long lines = h.charger.costs().remoteCompletion().ps();
    assertEquals(told.atPs(), put.atPs(), "bio_put after its CPU is told");
    assertTrue(lines > 0 && told.atPs() >= lines, "its lines come over first");
    assertEquals(
        1,
        h.charger
            .ledger()
            .steps(RingHarness.CPU, id -> id.toString())
            .get("LINES_REMOTE_COMPLETION")
            .calls(),
        "charged once, for its one request");
  }

  @Test
  void aFullCqRingShouldSendCqesToTheOverflowList() {
    RingHarness h = RingHarness.iopoll(8, 2);
    Issued io = issued(h, 4, 4);
    answer(h, io.poll(), io.batch().bios());
    assertEquals(2, h.cq.ready(), "what fits");
    assertEquals(2, h.ring.overflowed(), "the rest wait on the overflow list");
    h.cq.advance(2);
    assertEquals(2, h.ring.cqEvents(), "io_cqring_overflow_flush once there is room");
  }

  @Test
  void theRingsTeardownShouldDropWhatCompletedAndPollUntilTheListIsEmpty() {
    RingHarness h = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios s = h.submitted(2, 2);
    h.enter.submitBioReturned(s.reqs(), List.of());
    h.loop.exit();
    EnterCall poll = h.enter.iopoll().ioIopollTryReapEvents(0);
    EnterCall next = answer(h, poll, List.of(s.bios().get(0)));
    assertInstanceOf(EnterCall.PollBio.class, next, "one left in flight: it polls on");
    assertEquals(1, h.ring.droppedAtExit(), "nobody reaps its CQE");
    next = answer(h, next, List.of(s.bios().get(1)));
    assertInstanceOf(EnterCall.TeardownIdle.class, next);
    assertEquals(Phase.EXITED, h.loop.phase());
    assertEquals(0, h.cq.ready());
    assertInstanceOf(EnterCall.TeardownIdle.class, h.enter.iopoll().ioIopollTryReapEvents(0));
  }
}

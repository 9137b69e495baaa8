package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterLoop.Phase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * io_uring_enter's rules on a task's CPU, without one (fs/io_uring.c 5.16; docs/kernel.md sections
 * 1.5, 6 and 9): what io_submit_sqes takes, what each submission charges, and what the syscall does
 * after it.
 */
class IoUringEnterTest {

  @Test
  void ioSubmitSqesShouldTakeAtMostToSubmitSqes() {
    RingHarness h = RingHarness.iopoll(8, 8);
    h.prep(6);
    EnterCall call = h.enter.ioUringEnter(new EnterArgs(4, 0, false), 0);
    EnterCall.AllocBios alloc = assertInstanceOf(EnterCall.AllocBios.class, call);
    assertEquals(4, alloc.nr(), "one bio for each SQE taken");
    assertEquals(4, h.ring.submitted());
    assertEquals(2, h.sq.pending(), "the SQEs past to_submit wait for the next call");
  }

  @Test
  void ioSubmitSqesShouldStopAtTheSqRingsTail() {
    RingHarness h = RingHarness.iopoll(8, 8);
    h.prep(3);
    EnterCall.AllocBios alloc =
        (EnterCall.AllocBios) h.enter.ioUringEnter(new EnterArgs(8, 0, false), 0);
    assertEquals(3, alloc.nr(), "only what user space published");
    assertEquals(0, h.sq.pending());
    h.enter.bioAllocated(h.bios(3), alloc.atPs());
    assertEquals(3, h.loop.ret(), "io_uring_enter returns the SQEs it consumed");
  }

  @Test
  void ioUringEnterWithNoSqeShouldSubmitNothingAndReturn() {
    RingHarness h = RingHarness.iopoll(8, 8);
    EnterCall call = h.enter.ioUringEnter(new EnterArgs(4, 0, false), 0);
    assertInstanceOf(EnterCall.Return.class, call, "nothing to poll: it returns");
    assertEquals(0, h.loop.ret());
    assertEquals(0, h.calls(KernelFn.IO_SUBMIT_SQES));
    assertEquals(1, h.calls(KernelFn.IO_URING_ENTER), "the syscall's own work, once a call");
  }

  @Test
  void eachReadShouldChargeTheSubmissionPathOncePerSqeAndTheEnterPathOncePerCall() {
    RingHarness h = RingHarness.iopoll(32, 32);
    EnterCall.SubmitBios s = h.submitted(5, 0);
    for (KernelFn fn : IoUringEnter.ENTER_PATH) {
      assertEquals(1, h.calls(fn), fn.name());
    }
    for (KernelFn fn : IoUringEnter.SUBMIT_PATH) {
      assertEquals(5, h.calls(fn), fn.name());
    }
    for (KernelFn fn : IoRw.PAGES_PATH) {
      assertEquals(5, h.calls(fn), "each bio's pages: " + fn.name());
    }
    long perSqe = 0;
    for (KernelFn fn : IoUringEnter.SUBMIT_PATH) {
      perSqe += h.price(fn);
    }
    long perCall = 0;
    for (KernelFn fn : IoUringEnter.ENTER_PATH) {
      perCall += h.price(fn);
    }
    long pages = 0;
    for (KernelFn fn : IoRw.PAGES_PATH) {
      pages += h.price(fn);
    }
    assertEquals(perCall + 5 * perSqe + 5 * pages, s.atPs(), "the time is what it charged");
  }

  @Test
  void aFixedFileShouldSkipFgetFiles() {
    RingHarness fixed = RingHarness.iopoll(8, 8);
    fixed.submitted(4, 0);
    assertEquals(0, fixed.ps(KernelFn.FGET), "IOSQE_FIXED_FILE: io_file_get_fixed, no fget");
    RingHarness normal = new RingHarness(8, 8, new IoUringEnter.Setup(true, true, false), false, 0);
    normal.submitted(4, 0);
    assertTrue(normal.price(KernelFn.FGET) > 0);
    assertEquals(4 * normal.price(KernelFn.FGET), normal.ps(KernelFn.FGET), "one fget a read");
  }

  @Test
  void eachNopShouldCompleteAtIssueAndChargeTheNopPathOncePerSqe() {
    RingHarness h = new RingHarness(8, 8, new IoUringEnter.Setup(false, true, true), true, 0);
    h.prep(3);
    EnterCall call = h.enter.ioUringEnter(new EnterArgs(3, 3, true), 0);
    assertInstanceOf(EnterCall.Return.class, call, "its CQEs are posted: no wait");
    assertEquals(3, h.cq.ready(), "io_submit_flush_completions posted each CQE");
    for (KernelFn fn : IoUringEnter.NOP_PATH) {
      assertEquals(3, h.calls(fn), fn.name());
    }
    assertEquals(0, h.calls(KernelFn.IO_READ));
    assertEquals(3, h.loop.ret());
  }

  @Test
  void anIopollRingShouldFailEachReadOfAFileWithoutODirectAtIssue() {
    RingHarness h = new RingHarness(8, 8, new IoUringEnter.Setup(true, false, false), true, 0);
    h.prep(2);
    EnterCall call = h.enter.ioUringEnter(new EnterArgs(2, 2, true), 0);
    assertInstanceOf(EnterCall.Return.class, call, "the failed reads' CQEs are there at once");
    assertEquals(2, h.cq.ready());
    assertEquals(-IoRw.EOPNOTSUPP, h.cq.peek(0).res());
    for (KernelFn fn : IoUringEnter.FAILED_SUBMIT_PATH) {
      assertEquals(2, h.calls(fn), fn.name());
    }
    assertEquals(0, h.calls(KernelFn.BLKDEV_READ_ITER), "io_rw_init_file refuses before it");
  }

  @Test
  void ioSubmitSqesShouldPlugOnlyMoreThanTwoSqes() {
    assertEquals(1, IoUringEnter.plugNrIos(1));
    assertEquals(1, IoUringEnter.plugNrIos(2), "need_plug: max_ios > 2");
    assertEquals(3, IoUringEnter.plugNrIos(3), "nr_ios: the SQEs");
    assertEquals(32, RingHarness.iopoll(32, 32).submitted(32, 0).plugNrIos());
  }

  @Test
  void theSubmittedBiosShouldBeSetUpAsTheirRequestsSay() {
    RingHarness h = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios s = h.submitted(2, 0);
    assertEquals(2, s.bios().size());
    for (int i = 0; i < 2; i++) {
      Bio bio = s.bios().get(i);
      IoKiocb req = s.reqs().get(i);
      assertSame(req, bio.owner(), "bi_private");
      assertSame(bio, req.kiocbPrivate(), "kiocb->private, for polling");
      assertTrue(bio.polled() && bio.nowait(), "an IOPOLL ring's inline issue");
      assertEquals(req.sqe().off() >> 9, bio.sector());
    }
  }

  @Test
  void ioIopollReqIssuedShouldListOnlyTheRequestsThatWereIssued() {
    RingHarness h = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios s = h.submitted(3, 0);
    IoKiocb punted = s.reqs().get(1);
    h.enter.submitBioReturned(s.reqs(), List.of(punted));
    assertSame(s.reqs().get(0), h.ring.iopollHead());
    h.ring.completeRwIopoll(s.reqs().get(0), RingHarness.BS);
    h.ring.completeRwIopoll(s.reqs().get(2), RingHarness.BS);
    assertEquals(2, h.ring.iopollFlushCompleted().posted(), "the punted one is io-wq's");
    assertTrue(h.ring.iopollListEmpty());
  }

  @Test
  void aBioWithoutATagShouldSendItsRequestToIoWqAndBePutWithThoseThatEnded() {
    RingHarness h = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios s = h.submitted(3, 0);
    Bio noTag = s.bios().get(1);
    Bio ended = s.bios().get(2);
    IoUringEnter.BioReturned r =
        h.enter.submitBioReturned(s.reqs(), List.of(ended), List.of(noTag));
    assertEquals(List.of(s.reqs().get(1)), r.punted(), "-EAGAIN: REQ_F_REISSUE, io-wq issues it");
    assertEquals(List.of(ended, noTag), r.put(), "bio_wouldblock_error ends it: it is put too");
    assertSame(s.reqs().get(0), h.ring.iopollHead(), "the issued are listed");
    IoUringEnter.BioReturned none = h.enter.submitBioReturned(List.of(), List.of(ended), List.of());
    assertEquals(List.of(ended), none.put(), "none without a tag: what ended");
    assertEquals(List.of(), none.punted());
  }

  /** An IOPOLL ring's two reads, both punted to its worker, the task back in user space. */
  private record AtTheWorker(RingHarness h, IoWqOwner<IoKiocb> iowq, List<IoKiocb> reqs, long t) {
    static AtTheWorker of() {
      RingHarness h = RingHarness.iopoll(8, 8);
      IoWqOwner<IoKiocb> iowq =
          new IoWqOwner<>(h.charger, RingHarness.CPU, h.ring, h.charger.costs(), req -> req);
      EnterCall.SubmitBios s = h.submitted(2, 0);
      IoUringEnter.BioReturned r = h.enter.submitBioReturned(s.reqs(), List.of(), s.bios());
      long t = iowq.punt(s.atPs(), r.punted());
      EnterCall.Return ret =
          assertInstanceOf(EnterCall.Return.class, h.enter.ioSubmitSqesReturned(t));
      return new AtTheWorker(h, iowq, s.reqs(), h.enter.exitToUserMode(ret.atPs()));
    }

    boolean waits() {
      return h.enter.waitsForItsWorker(true, true, iowq, 2);
    }
  }

  @Test
  void aGroupsReturnShouldPuntThenEndWhatEndedInQueueRqThenPut() {
    RingHarness h = RingHarness.iopoll(8, 8);
    h.endSubmittedPs = 1_000;
    IoWqOwner<IoKiocb> iowq =
        new IoWqOwner<>(h.charger, RingHarness.CPU, h.ring, h.charger.costs(), req -> req);
    EnterCall.SubmitBios s = h.submitted(3, 0);
    Bio noTag = s.bios().get(0);
    Bio ended = s.bios().get(1);
    IoUringEnter.GroupReturned r =
        h.enter.submitBioReturned(s.reqs(), List.of(ended), List.of(noTag), 5_000, iowq);
    assertEquals(List.of(s.reqs().get(0)), r.punted());
    assertTrue(r.puntedAtPs() > 5_000, "io_queue_async_work charged first");
    assertEquals(r.puntedAtPs(), h.endSubmittedAt, "then bi_end_io of what ended, from there");
    assertEquals(1, h.endSubmittedBios);
    assertEquals(r.puntedAtPs() + 1_000, r.atPs(), "the task goes on after it");
    assertEquals(List.of(ended, noTag), r.put(), "then bio_put of both");
    assertEquals(1, iowq.atWorker());

    RingHarness quiet = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios q = quiet.submitted(1, 0);
    IoUringEnter.GroupReturned none =
        quiet.enter.submitBioReturned(q.reqs(), List.of(), List.of(), 700, iowq);
    assertEquals(700, none.puntedAtPs(), "nothing punted: nothing charged");
    assertEquals(700, none.atPs());
    assertEquals(List.of(), none.put());
  }

  @Test
  void aTaskWhoseRequestsAllWaitAtItsWorkerShouldTurnInEmptyEntersUntilTheWorkerRuns() {
    AtTheWorker w = AtTheWorker.of();
    assertTrue(w.waits(), "both at the worker on its CPU, nothing to reap");
    assertFalse(
        w.h().enter.waitsForItsWorker(false, true, w.iowq(), 2),
        "a worker elsewhere runs meanwhile");
    assertFalse(
        w.h().enter.waitsForItsWorker(true, false, w.iowq(), 2),
        "t/io_uring would not enter again");
    assertFalse(
        w.h().enter.waitsForItsWorker(true, true, w.iowq(), 3),
        "one in flight is not the worker's");

    long until = w.t() + 10_000_000; // 10 us
    IoUringEnter.EmptyEnters done = w.h().enter.emptyEnters(w.t(), until, w.iowq());
    assertTrue(done.endPs() >= until, "until one ends at or after it");
    long perCall = 0;
    for (KernelFn fn : IoUringEnter.ENTER_PATH) {
      perCall += w.h().charger.costs().callPs(fn);
    }
    assertTrue(done.calls() >= (until - w.t()) / perCall, "one io_uring_enter's own work each");
    assertEquals(2, w.h().ring.submitted(), "nothing more submitted");
    assertTrue(w.waits(), "nothing changed: still waiting");
  }

  @Test
  void aTaskWithAnythingToPollOrReapOrThatEndedShouldNotTurnEmpty() {
    AtTheWorker issued = AtTheWorker.of();
    issued.iowq().workerDone(issued.reqs().get(0));
    assertFalse(issued.waits(), "the worker issued one: it is no longer the worker's");

    AtTheWorker listed = AtTheWorker.of();
    listed.h().ring.iopollReqIssued(listed.reqs().get(0));
    assertFalse(listed.waits(), "something on the IOPOLL list to poll");

    AtTheWorker ended = AtTheWorker.of();
    ended.h().loop.exit();
    assertFalse(ended.waits(), "an ended task turns no more");

    RingHarness irq = new RingHarness(8, 8, new IoUringEnter.Setup(false, true, false), true, 0);
    IoWqOwner<IoKiocb> none =
        new IoWqOwner<>(irq.charger, RingHarness.CPU, irq.ring, irq.charger.costs(), req -> req);
    assertFalse(irq.enter.waitsForItsWorker(true, true, none, 0), "a ring without IOPOLL sleeps");
    assertTrue(
        AtTheWorker.of().waits(), "each of these differs from the waiting ring in that alone");
  }

  @Test
  void anIopollRingShouldPollAfterSubmittingOnlyWhenAskedForEvents() {
    assertInstanceOf(
        EnterCall.UringLock.class,
        RingHarness.iopoll(8, 8).afterSubmission(2, 2),
        "io_iopoll_check takes the uring_lock again, then polls");
    RingHarness noWait = RingHarness.iopoll(8, 8);
    assertInstanceOf(EnterCall.Return.class, noWait.afterSubmission(2, 0));
    assertEquals(Phase.RETURN, noWait.loop.phase());
  }

  @Test
  void ioCqringWaitShouldSleepUntilMinCompleteAndReturnOnceTaskWorkPostedThem() {
    RingHarness h = new RingHarness(8, 8, new IoUringEnter.Setup(false, true, false), true, 0);
    EnterCall.SubmitBios s = h.submitted(2, 2);
    h.enter.submitBioReturned(s.reqs(), List.of());
    EnterCall.Sleep sleep =
        assertInstanceOf(EnterCall.Sleep.class, h.enter.ioSubmitSqesReturned(s.atPs()));
    assertEquals(Phase.SLEEP, h.loop.phase());
    assertEquals(s.atPs() + h.price(KernelFn.SCHEDULE), sleep.atPs());
    for (IoKiocb req : s.reqs()) {
      assertSame(IoRw.IRQ_END_PATH, new IoRw(h.ring, false).kiComplete(req, RingHarness.BS));
    }
    assertTrue(h.loop.wakeIfSleeping());
    long[] before = new long[IoUringEnter.TASK_WORK_PATH.length];
    for (int i = 0; i < before.length; i++) {
      before[i] = h.calls(IoUringEnter.TASK_WORK_PATH[i]);
    }
    EnterCall back = h.enter.scheduled(sleep.atPs());
    assertInstanceOf(EnterCall.Return.class, back, "tctx_task_work posted both CQEs");
    assertEquals(2, h.cq.ready());
    assertEquals(KernelFn.TCTX_TASK_WORK, IoUringEnter.TASK_WORK_PATH[0]);
    assertEquals(1 + 2, h.calls(KernelFn.TCTX_TASK_WORK) - before[0], "the run's, each request's");
    for (int i = 1; i < before.length; i++) {
      KernelFn fn = IoUringEnter.TASK_WORK_PATH[i];
      assertEquals(2, h.calls(fn) - before[i], "once a request: " + fn.name());
    }
  }

  @Test
  void anotherCpusCompletionsShouldQueueTaskWorkAndWakeTheSleepingTaskOnce() {
    RingHarness h = new RingHarness(8, 8, new IoUringEnter.Setup(false, true, false), true, 0);
    EnterCall.SubmitBios s = h.submitted(2, 2);
    h.enter.submitBioReturned(s.reqs(), List.of());
    assertInstanceOf(EnterCall.Sleep.class, h.enter.ioSubmitSqesReturned(s.atPs()));
    List<IoKiocb> heard = new ArrayList<>();
    for (IoKiocb req : s.reqs()) {
      h.enter.completedElsewhere(req, RingHarness.BS, heard::add);
    }
    assertEquals(s.reqs(), heard, "the ring's io-wq hears of each");
    assertEquals(2, h.ring.taskWorkPending(), "io_complete_rw: each waits on the task_work list");
    assertEquals(0, h.cq.ready());
    assertTrue(h.enter.taskWorkQueuedElsewhere(), "the sleeping task is woken");
    assertFalse(h.enter.taskWorkQueuedElsewhere(), "once");
  }

  @Test
  void anotherCpusCompletionsOfAnEndedTaskShouldGoToTheRingsTeardown() {
    RingHarness h = new RingHarness(8, 8, new IoUringEnter.Setup(false, true, false), true, 0);
    EnterCall.SubmitBios s = h.submitted(1, 0);
    h.enter.submitBioReturned(s.reqs(), List.of());
    EnterCall.Return ret =
        assertInstanceOf(EnterCall.Return.class, h.enter.ioSubmitSqesReturned(s.atPs()));
    h.enter.exitToUserMode(ret.atPs());
    h.loop.exit(); // t/io_uring's thread ends with its read in flight
    h.enter.completedElsewhere(s.reqs().get(0), RingHarness.BS, req -> {});
    assertFalse(h.enter.taskWorkQueuedElsewhere(), "nobody to wake");
    assertEquals(0, h.ring.taskWorkPending(), "dropped: nobody will run it");
    assertEquals(0, h.ring.awaitingCompletion());
  }

  @Test
  void theTasksExitShouldGiveItsQueuedTaskWorkToTheTeardownAndReapTheIopollList() {
    RingHarness h = new RingHarness(8, 8, new IoUringEnter.Setup(false, true, false), true, 0);
    EnterCall.SubmitBios s = h.submitted(2, 0);
    h.enter.submitBioReturned(s.reqs(), List.of());
    EnterCall.Return ret =
        assertInstanceOf(EnterCall.Return.class, h.enter.ioSubmitSqesReturned(s.atPs()));
    h.enter.exitToUserMode(ret.atPs());
    h.ring.completeRw(s.reqs().get(0), RingHarness.BS); // io_complete_rw, the task in user space
    assertFalse(h.enter.taskWorkToTeardown(), "the task lives: its task_work is its own");
    assertEquals(1, h.ring.taskWorkPending());
    assertInstanceOf(EnterCall.TeardownIdle.class, h.enter.exit(ret.atPs() + 10));
    assertEquals(0, h.ring.taskWorkPending(), "nobody will run it: the teardown takes it");
    h.ring.completeRw(s.reqs().get(1), RingHarness.BS); // an interrupt after the exit
    assertTrue(h.enter.taskWorkToTeardown(), "later ones go there too");
    assertEquals(0, h.ring.awaitingCompletion());

    RingHarness p = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios q = p.submitted(1, 0);
    p.enter.submitBioReturned(q.reqs(), List.of());
    EnterCall.Return back =
        assertInstanceOf(EnterCall.Return.class, p.enter.ioSubmitSqesReturned(q.atPs()));
    p.enter.exitToUserMode(back.atPs());
    assertInstanceOf(
        EnterCall.PollBio.class, p.enter.exit(back.atPs()), "io_iopoll_try_reap_events polls it");
  }

  @Test
  void afterTheTaskEndedOnlyTheIdleTeardownPollsWhatAWorkerListed() {
    RingHarness h = RingHarness.iopoll(8, 8);
    assertEquals(-1, h.enter.teardownPollsAt(500, 300), "the task lives: its own poll finds it");
    assertInstanceOf(EnterCall.TeardownIdle.class, h.enter.exit(100));
    assertEquals(500, h.enter.teardownPollsAt(500, 300), "granted after the CPU was free");
    assertEquals(700, h.enter.teardownPollsAt(500, 700), "once the CPU is free of the task");
    assertEquals(-1, h.enter.teardownPollsAt(-1, 300), "the worker waits for the lock");

    RingHarness polling = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios s = polling.submitted(1, 0);
    polling.enter.submitBioReturned(s.reqs(), List.of());
    EnterCall.Return ret =
        assertInstanceOf(EnterCall.Return.class, polling.enter.ioSubmitSqesReturned(s.atPs()));
    polling.enter.exitToUserMode(ret.atPs());
    assertInstanceOf(EnterCall.PollBio.class, polling.enter.exit(ret.atPs()));
    assertEquals(
        -1,
        polling.enter.teardownPollsAt(500, 300),
        "the teardown polls already: it goes on to it");
  }

  @Test
  void anotherCpusPollOfAnIopollRingsRequestShouldWriteItsResultAndWakeNobody() {
    RingHarness h = RingHarness.iopoll(8, 8);
    EnterCall.SubmitBios s = h.submitted(1, 1);
    h.enter.submitBioReturned(s.reqs(), List.of());
    List<IoKiocb> heard = new ArrayList<>();
    h.enter.completedElsewhere(s.reqs().get(0), RingHarness.BS, heard::add);
    assertEquals(IoKiocb.State.COMPLETED, s.reqs().get(0).state(), "io_complete_rw_iopoll");
    assertEquals(0, h.ring.taskWorkPending(), "no task_work on an IOPOLL ring");
    assertEquals(List.of(), heard, "io-wq hears from the IOPOLL list instead");
    assertFalse(h.enter.taskWorkQueuedElsewhere());
  }

  @Test
  void ioCqringWaitForMoreThanAreInFlightShouldHang() {
    RingHarness h = new RingHarness(8, 8, new IoUringEnter.Setup(false, true, false), true, 0);
    EnterCall call = h.enter.ioUringEnter(new EnterArgs(0, 1, true), 0);
    EnterCall.Hang hang = assertInstanceOf(EnterCall.Hang.class, call);
    assertEquals(1, hang.minComplete());
    assertEquals(0, hang.posted());
  }

  @Test
  void theReturnToUserSpaceShouldRunTheTaskWorkACompletionQueued() {
    RingHarness h = new RingHarness(8, 8, new IoUringEnter.Setup(false, true, false), true, 0);
    EnterCall.SubmitBios s = h.submitted(1, 0);
    h.enter.submitBioReturned(s.reqs(), List.of());
    EnterCall.Return ret =
        assertInstanceOf(EnterCall.Return.class, h.enter.ioSubmitSqesReturned(s.atPs()));
    new IoRw(h.ring, false).kiComplete(s.reqs().get(0), RingHarness.BS);
    assertEquals(0, h.cq.ready());
    long t = h.enter.exitToUserMode(ret.atPs());
    assertEquals(1, h.cq.ready(), "exit_to_user_mode_loop ran tctx_task_work");
    assertTrue(t > ret.atPs());
    assertFalse(h.loop.phase().callOut());
  }

  @Test
  void eachCallShouldLeaveTheTaskInThePhaseItResumesIn() {
    RingHarness h = RingHarness.iopoll(8, 8);
    h.prep(1);
    EnterCall alloc = h.enter.ioUringEnter(new EnterArgs(1, 1, true), 0);
    assertEquals(alloc.resumesIn(), h.loop.phase());
    EnterCall.SubmitBios s = (EnterCall.SubmitBios) h.enter.bioAllocated(h.bios(1), 0);
    assertEquals(s.resumesIn(), h.loop.phase());
    h.enter.submitBioReturned(s.reqs(), List.of());
    EnterCall lock = h.enter.ioSubmitSqesReturned(0);
    EnterCall poll = h.enter.iopoll().ioDoIopoll(lock.atPs());
    assertEquals(Phase.POLL, poll.resumesIn());
    assertEquals(poll.resumesIn(), h.loop.phase());
  }
}

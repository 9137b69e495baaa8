package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.ReferenceCosts;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An io-wq worker's path (fs/io-wq.c 5.16 {@code io_worker_handle_work}, fs/io_uring.c 5.16 {@code
 * io_wq_submit_work}, {@code io_iopoll_req_issued}; docs/kernel.md sections 11 and 14): each rule
 * it follows, and what it asks of its CPU at each step.
 */
class IoWorkerTest {
  private static final int CPU = 1;
  private final Charger charger = new Charger(ReferenceCosts.of(), "cpu1-iou-wrk0");
  private final SubmittedReads reads = new SubmittedReads(8);

  private IoWorker worker(boolean iopoll, WorkerSpin spin) {
    return new IoWorker("cpu1-iou-wrk0", CPU, charger, iopoll, 1000, spin != null, spin);
  }

  private long calls(KernelFn fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU, id -> id.toString()).get(fn.name());
    return e == null ? 0 : e.calls();
  }

  /** Woken by {@code reqs}, switched in at 0: up to the bio it asks for. */
  private WorkerCall started(IoWorker w, List<IoKiocb> reqs) {
    assertTrue(w.enqueue(reqs));
    return w.switchedIn(0);
  }

  @Test
  void onlyThePuntThatFindsItAsleepShouldWakeIt() {
    IoWorker w = worker(true, null);
    assertTrue(w.enqueue(List.of(reads.read(0))), "io_wqe_activate_free_worker");
    assertFalse(w.enqueue(List.of(reads.read(4096))), "awake already: queued behind");
    assertTrue(w.woken());
    assertEquals(2, w.wq().enqueued());
  }

  @Test
  void switchedInItShouldPayForTheSwitchThenIssueTheHeadUpToItsBio() {
    IoWorker w = worker(true, null);
    WorkerCall call = started(w, List.of(reads.read(0)));
    assertInstanceOf(WorkerCall.AllocBio.class, call);
    assertEquals(1, calls(KernelFn.SCHEDULE), "schedule() in");
    assertEquals(1, calls(KernelFn.IO_WQ_SUBMIT_WORK));
    assertEquals(1, calls(KernelFn.BLKDEV_DIRECT_IO), "up to __blkdev_direct_IO's bio");
    assertTrue(w.inFlight());
    assertThrows(InvariantBroken.class, () -> w.switchedIn(call.atPs()), "switched in twice");
  }

  @Test
  void itsBioShouldBePolledButNotNowaitWhenItsQueuePolls() {
    IoWorker w = worker(true, null);
    IoKiocb req = reads.read(0);
    started(w, List.of(req));
    Bio bio = Bio.onStack(1);
    WorkerCall.SubmitBio s = (WorkerCall.SubmitBio) w.bioAllocated(bio, 10, true);
    assertSame(req, s.req());
    assertTrue(s.polled(), "REQ_POLLED: the ring polls it");
    assertFalse(bio.nowait(), "io-wq's issue is not IO_URING_F_NONBLOCK");
    assertTrue(s.atPs() > 10, "its user pages taken");
  }

  @Test
  void anIssuedRequestShouldGoOnTheIopollListUnderTheUringLockThenTheNextIsIssued() {
    IoWorker w = worker(true, null);
    started(w, List.of(reads.read(0), reads.read(4096)));
    w.bioAllocated(Bio.onStack(1), 10, true);
    WorkerCall lock = w.submitted(List.of(), List.of(), 20);
    assertInstanceOf(WorkerCall.UringLock.class, lock);
    assertTrue(w.waitsForLock(), "the CPU takes interrupts meanwhile");
    assertEquals(20, w.freeAtPs(), "its CPU is free from the ask");
    w.interrupted(5);
    WorkerCall next = w.lockGranted(100);
    assertEquals(100 - 20 - 5, w.lockWaitPs(), "the wait, less the interrupt's time");
    assertEquals(1, calls(KernelFn.IO_IOPOLL_REQ_ISSUED), "io_iopoll_req_issued under the lock");
    assertEquals(1, w.wq().issuedCount());
    assertInstanceOf(WorkerCall.AllocBio.class, next, "the next request");
  }

  @Test
  void aTaskThatPreemptsItsSpinForTheUringLockShouldPutItToSleepOnTheMutex() {
    IoWorker w = worker(true, null);
    started(w, List.of(reads.read(0)));
    w.bioAllocated(Bio.onStack(1), 10, true);
    w.submitted(List.of(), List.of(), 20);
    long switches = calls(KernelFn.SCHEDULE);
    w.lockSleeps(50); // mutex_optimistic_spin sees need_resched
    assertFalse(w.inFlight(), "asleep: the CPU is free for the task that preempted it");
    assertFalse(w.waitsForLock(), "its CPU's interrupts are not the wait's");
    assertEquals(switches + 1, calls(KernelFn.SCHEDULE), "schedule_preempt_disabled");
    assertTrue(w.freeAtPs() > 50, "free once switched out");
    w.interrupted(7); // an interrupt while it sleeps is not taken from its wait
    w.lockGranted(400); // woken by the grant, switched in at 400
    assertEquals(50 - 20, w.lockWaitPs(), "only the spin is lock wait, not the sleep");
    assertEquals(1, calls(KernelFn.IO_IOPOLL_REQ_ISSUED));
    assertThrows(InvariantBroken.class, () -> w.lockSleeps(500), "it waits for no lock now");
  }

  @Test
  void aBioThatFindsNoTagOnAnIopollRingShouldEndWithEagainAndBeRetriedAfterCondResched() {
    IoWorker w = worker(true, null);
    IoKiocb req = reads.read(0);
    started(w, List.of(req));
    Bio bio = Bio.onStack(1);
    w.bioAllocated(bio, 10, true);
    WorkerCall.PutBios put = (WorkerCall.PutBios) w.submitted(List.of(), List.of(bio), 20);
    assertEquals(List.of(bio), put.bios());
    assertTrue(put.completed().isEmpty());
    assertNull(req.kiocbPrivate(), "the bio is gone: the retry takes a new one");
    assertEquals(1, w.wq().retries());
    assertEquals(1, calls(KernelFn.COND_RESCHED));
    assertTrue(w.atCondResched(), "its CPU may switch here");
    assertInstanceOf(WorkerCall.AllocBio.class, w.put(put.atPs()), "alone on its CPU: again");
    assertEquals(0, w.wq().issuedCount());
  }

  @Test
  void onItsThreadsCpuTheRetriesShouldTurnInClosedFormUntilSomethingEndsThem() {
    WorkerSpin spin = new WorkerSpin(charger, CPU, true, t -> t + 1_000_000_000L);
    IoWorker w = worker(true, spin);
    started(w, List.of(reads.read(0)));
    Bio bio = Bio.onStack(1);
    w.bioAllocated(bio, 10, true);
    WorkerCall.PutBios put = (WorkerCall.PutBios) w.submitted(List.of(), List.of(bio), 20);
    WorkerCall.Spin s = (WorkerCall.Spin) w.put(put.atPs());
    long id = w.spinFrom(s.atPs());
    assertEquals(id, w.spinning());
    long turns = calls(KernelFn.COND_RESCHED);
    long end = w.spinEnds(id, s.atPs() + 500_000_000L, WorkerSpin.End.SLICE);
    assertTrue(end >= s.atPs() + 500_000_000L, "at the first cond_resched past what ended it");
    assertTrue(calls(KernelFn.COND_RESCHED) > turns + 100, "each turn of 500 us charged");
    assertEquals(-1, w.spinEnds(id, end, WorkerSpin.End.TAG), "a spin ends once");
    assertEquals(1, w.spinSlices());
    assertEquals(end - s.atPs(), w.spunPs());
    assertInstanceOf(WorkerCall.AllocBio.class, w.rescheduled(end), "the issue again");
  }

  @Test
  void onlyOnItsThreadsCpuOfAnIopollRingShouldItsRetriesTurnInClosedForm() {
    IoWorker alone = IoWorker.of("w", CPU, charger, true, 1000, false, true, t -> Long.MAX_VALUE);
    assertInstanceOf(WorkerCall.AllocBio.class, retried(alone), "its own CPU: each retry a step");
    IoWorker shared = IoWorker.of("w", CPU, charger, true, 1000, true, true, t -> t + 5_000);
    assertInstanceOf(WorkerCall.Spin.class, retried(shared), "its thread's CPU: a spin");
    IoWorker.SpinStarted s = shared.startSpin(100);
    assertEquals(shared.spinning(), s.id());
    assertEquals(5_100, s.tagUntilPs(), "a tag freed before the tick ends it");
    assertEquals(5_100, s.sliceEndsPs(), "else the tick that ends its slice");
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new IoWorker(
                "w", CPU, charger, true, 1000, false, new WorkerSpin(charger, CPU, true, t -> t)));
    assertThrows(
        IllegalArgumentException.class,
        () -> new IoWorker("w", CPU, charger, false, 1000, true, spin(t -> t)),
        "without IOPOLL a worker on its thread's CPU sleeps for a tag: no spin");
    IoWorker blocking = IoWorker.of("w", CPU, charger, false, 1000, true, true, t -> t);
    assertTrue(blocking.enqueue(List.of(reads.read(0))), "such a worker is made, without a spin");
  }

  @Test
  void aSpinWhoseTickHasComeOrThatRunsAloneShouldAskOnlyWhatCanEndIt() {
    IoWorker now = IoWorker.of("w", CPU, charger, true, 1000, true, true, t -> t);
    retried(now);
    IoWorker.SpinStarted due = now.startSpin(100);
    assertEquals(-1, due.tagUntilPs(), "the tick is now: no tag to wait for");
    assertEquals(100, due.sliceEndsPs());
    IoWorker alone = IoWorker.of("w", CPU, charger, true, 1000, true, true, t -> Long.MAX_VALUE);
    retried(alone);
    IoWorker.SpinStarted free = alone.startSpin(100);
    assertEquals(Long.MAX_VALUE, free.tagUntilPs(), "only a freed tag ends it");
    assertEquals(-1, free.sliceEndsPs(), "no tick asks a task alone");
  }

  private WorkerSpin spin(java.util.function.LongUnaryOperator reschedTick) {
    return new WorkerSpin(charger, CPU, true, reschedTick);
  }

  /** Switched in for one read whose bio finds no tag: what comes after the bio is put back. */
  private WorkerCall retried(IoWorker w) {
    started(w, List.of(reads.read(0)));
    Bio bio = Bio.onStack(1);
    w.bioAllocated(bio, 10, true);
    WorkerCall.PutBios put = (WorkerCall.PutBios) w.submitted(List.of(), List.of(bio), 20);
    return w.put(put.atPs());
  }

  @Test
  void withoutIopollABioEndedInQueueRqShouldQueueItsThreadsTaskWorkThenGoBack() {
    IoWorker w = worker(false, null);
    started(w, List.of(reads.read(0)));
    Bio bio = Bio.onStack(1);
    w.bioAllocated(bio, 10, true);
    WorkerCall.PutBios put = (WorkerCall.PutBios) w.submitted(List.of(bio), List.of(), 20);
    assertEquals(List.of(bio), put.completed(), "io_complete_rw: its thread hears of it");
    assertEquals(1, w.wq().issuedCount(), "issued: it ended");
    assertInstanceOf(WorkerCall.Sleep.class, w.put(put.atPs()), "nothing left: it sleeps");
    assertEquals(IoWorker.State.IDLE, w.state());
  }

  @Test
  void withoutIopollABioInFlightShouldLetTheWorkerGoOnAtOnce() {
    IoWorker w = worker(false, null);
    started(w, List.of(reads.read(0), reads.read(4096)));
    w.bioAllocated(Bio.onStack(1), 10, true);
    assertInstanceOf(WorkerCall.AllocBio.class, w.submitted(List.of(), List.of(), 20));
  }

  @Test
  void anUnpolledBioEndedInQueueRqOnAnIopollRingShouldStillBeListedUnderTheLock() {
    IoWorker w = worker(true, null);
    started(w, List.of(reads.read(0)));
    Bio bio = Bio.onStack(1);
    w.bioAllocated(bio, 10, false);
    WorkerCall.PutBios put = (WorkerCall.PutBios) w.submitted(List.of(bio), List.of(), 20);
    assertEquals(List.of(bio), put.completed(), "io_complete_rw_iopoll marked it done");
    assertEquals(1, calls(KernelFn.BLKDEV_BIO_END_IO_ASYNC));
    assertInstanceOf(WorkerCall.UringLock.class, w.put(put.atPs()), "io_iopoll_req_issued");
  }

  @Test
  void waitingForTheLockItShouldSpinOnItsOwnerOnlyOffItsThreadsCpu() {
    for (boolean shared : new boolean[] {false, true}) {
      IoWorker w = IoWorker.of("w", CPU, charger, true, 1000, shared, true, t -> Long.MAX_VALUE);
      started(w, List.of(reads.read(0)));
      Bio bio = Bio.onStack(1);
      w.bioAllocated(bio, 10, true);
      assertFalse(w.spinsOnRunningOwner(), "not waiting");
      assertInstanceOf(WorkerCall.UringLock.class, w.submitted(List.of(), List.of(), 20));
      assertTrue(w.waitsForLock());
      assertEquals(
          !shared,
          w.spinsOnRunningOwner(),
          "mutex_spin_on_owner while the thread runs elsewhere; on its CPU the thread waits");
    }
  }

  @Test
  void aBlockingIssueShouldSleepForATagAndTryTheSameBioWhenWoken() {
    IoWorker w = worker(false, null);
    IoKiocb req = reads.read(0);
    started(w, List.of(req));
    Bio bio = Bio.onStack(1);
    w.bioAllocated(bio, 10, true);
    w.slept(30);
    assertEquals(IoWorker.State.TAG_SLEEP, w.state());
    assertFalse(w.inFlight(), "asleep: its CPU is free");
    assertEquals(30, w.freeAtPs());
    WorkerCall.TagRetry retry = (WorkerCall.TagRetry) w.woken(50);
    assertSame(bio, retry.bio());
    assertEquals(1, w.tagSleeps());
  }

  @Test
  void anAnswerInTheWrongStateShouldBreakTheBooksNotPassUnnoticed() {
    IoWorker w = worker(true, null);
    assertThrows(InvariantBroken.class, () -> w.put(0), "asleep, with nothing out");
    started(w, List.of(reads.read(0)));
    assertThrows(InvariantBroken.class, () -> w.lockGranted(10), "it never asked");
  }

  @Test
  void itsBooksShouldBalanceOnlyOnceEveryPuntWasIssuedAndItSleeps() {
    IoWorker w = worker(false, null);
    started(w, List.of(reads.read(0)));
    Books open = new Books();
    w.audit(open);
    assertFalse(open.balanced());
    w.bioAllocated(Bio.onStack(1), 10, true);
    assertInstanceOf(WorkerCall.Sleep.class, w.submitted(List.of(), List.of(), 20));
    Books closed = new Books();
    w.audit(closed);
    assertTrue(closed.balanced(), closed.violations().toString());
  }
}

package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.cost.ReferenceCosts;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The submitter's side of its io-wq and of its ring's {@code uring_lock} (fs/io_uring.c 5.16,
 * {@code io_queue_async_work}, {@code io_iopoll_req_issued} with {@code IO_URING_F_UNLOCKED};
 * docs/kernel.md section 14): what a punt costs and when it wakes the worker, how many requests the
 * worker has, and the lock between the thread and a worker that wants it.
 */
class IoWqOwnerTest {
  private static final int CPU = 0;
  private static final PathCosts COSTS = ReferenceCosts.of();

  /** A worker's ask for the lock: its request. */
  record Ask(IoKiocb req) {}

  private final Charger charger = new Charger(COSTS, "cpu0");
  private final SubmittedReads reads = new SubmittedReads(16);
  private final IoWqOwner<Ask> iowq = new IoWqOwner<>(charger, CPU, reads.ring, COSTS, Ask::req);

  /** How long a worker holds the lock once it has it. */
  private final long holds =
      COSTS.callPs(KernelFn.IO_IOPOLL_REQ_ISSUED) + 2 * COSTS.lineTransferPs();

  private long calls(KernelFn fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU, id -> id.toString()).get(fn.name());
    return e == null ? 0 : e.calls();
  }

  @Test
  void aPuntShouldWakeTheWorkerOnlyWhenNoneOfTheThreadsRequestsIsAtIt() {
    IoKiocb a = reads.read(0);
    a.setKiocbPrivate(Bio.onStack(1));
    IoKiocb b = reads.read(4096);
    long t = iowq.punt(100, List.of(a, b));
    assertEquals(2, calls(KernelFn.IO_QUEUE_ASYNC_WORK), "io_queue_async_work per request");
    assertEquals(2, calls(KernelFn.BLKDEV_BIO_END_IO_ASYNC), "each bio ended -EAGAIN");
    assertEquals(1, calls(KernelFn.TRY_TO_WAKE_UP), "the sleeping worker woken, once");
    assertEquals(100 + charger.ledger().time(CPU, CpuTime.SUBMIT), t, "the thread's time");
    assertEquals(2, iowq.atWorker());
    assertTrue(a.atWorker() && b.atWorker());
    assertNull(a.kiocbPrivate(), "its bio is gone: the worker issues a new one");

    iowq.punt(t, List.of(reads.read(8192)));
    assertEquals(1, calls(KernelFn.TRY_TO_WAKE_UP), "the worker has work: it is awake");
    assertEquals(3, iowq.atWorker());
  }

  @Test
  void aRequestThatEndsLeavesTheWorkerOnceAndOneNeverPuntedNever() {
    IoKiocb a = reads.read(0);
    iowq.punt(0, List.of(a));
    iowq.workerDone(a);
    iowq.workerDone(a);
    assertEquals(0, iowq.atWorker(), "counted once");
    iowq.workerDone(reads.read(4096));
    assertEquals(0, iowq.atWorker(), "one the thread issued itself was never the worker's");
  }

  @Test
  void aWorkerThatAsksWhileTheThreadHoldsTheLockGetsItWhenTheThreadDropsIt() {
    IoKiocb a = reads.read(0);
    iowq.punt(0, List.of(a));
    assertEquals(1_000, iowq.lock(1_000), "free: the thread has it at once");
    assertEquals(-1, iowq.wants(new Ask(a), 1_500), "the owner runs: the worker spins");
    assertTrue(reads.ring.iopollListEmpty());
    List<Ask> granted = iowq.unlock(3_000);
    assertEquals(List.of(new Ask(a)), granted);
    assertFalse(reads.ring.iopollListEmpty(), "io_iopoll_req_issued under the lock");
    assertFalse(a.atWorker());
    assertEquals(0, iowq.atWorker());
    assertEquals(0, charger.ledger().time(CPU, CpuTime.LOCK_WAIT), "the thread never waited");
  }

  @Test
  void theThreadSpinsWhileAWorkerHoldsTheLockAndThatSpinIsLockWait() {
    IoKiocb a = reads.read(0);
    iowq.punt(0, List.of(a));
    assertEquals(2_000, iowq.wants(new Ask(a), 2_000), "free: the worker has it at once");
    assertFalse(reads.ring.iopollListEmpty());
    long got = iowq.lock(2_000);
    assertEquals(2_000 + holds, got, "the thread waits for io_iopoll_req_issued");
    assertEquals(holds, charger.ledger().time(CPU, CpuTime.LOCK_WAIT));
  }

  @Test
  void aWaitingWorkerGetsInBetweenSubmitAndPoll() {
    IoKiocb a = reads.read(0);
    iowq.punt(0, List.of(a));
    iowq.lock(0);
    iowq.wants(new Ask(a), 10);
    List<Ask> granted = new ArrayList<>();
    long again = iowq.relock(500, granted);
    assertEquals(List.of(new Ask(a)), granted, "io_uring_enter drops it between the two");
    assertEquals(500 + holds, again, "and takes it again after the worker");
    assertEquals(holds, charger.ledger().time(CPU, CpuTime.LOCK_WAIT));
    assertEquals(0, iowq.atWorker());
  }
}

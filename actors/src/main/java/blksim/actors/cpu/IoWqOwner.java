package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.UringLock;
import java.util.ArrayList;
import java.util.List;

/**
 * The submitter's side of its io-wq: punting the requests whose bio found no tag, and the ring's
 * {@code uring_lock}, which the thread holds while it is inside io_uring_enter and the worker needs
 * to put a request it issued on the IOPOLL list.
 *
 * <p>The lock's rules are {@link UringLock}'s; this side charges the submitter's waits, puts the
 * worker's request on the IOPOLL list and tells the worker.
 */
final class IoWqOwner {
  /**
   * A request whose bio found no tag: the bio ends with -EAGAIN, io_read sets up async data, and
   * the request is queued for io-wq; per request.
   */
  static final KernelFn[] PUNT_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC,
    KernelFn.BIO_RELEASE_PAGES,
    KernelFn.IO_SETUP_ASYNC_RW,
    KernelFn.IO_QUEUE_ASYNC_WORK
  };

  private final CpuCore c;
  private final UringLock<Cpu.WantsUringLock> uringLock;
  private long atWorker;

  IoWqOwner(CpuCore c) {
    this.c = c;
    // the worker holds it for io_iopoll_req_issued, after pulling over the lock's and the list's
    // lines
    this.uringLock =
        new UringLock<>(
            c.costs.callPs(KernelFn.IO_IOPOLL_REQ_ISSUED) + 2 * c.costs.lineTransferPs());
  }

  /**
   * io_read saw {@code REQ_F_REISSUE}: each request's bio ended with {@code -EAGAIN} ({@code
   * blkdev_bio_end_io_async}, {@code io_complete_rw_iopoll}); it gets async data and goes to the
   * io-wq, whose worker is woken if it sleeps.
   *
   * @return the time after it
   */
  long punt(long t, List<IoKiocb> reqs, Outbox out) {
    if (c.worker == null) {
      throw new InvariantBroken(
          c.self.name() + ": a bio found no tag and there is no io-wq worker");
    }
    t += c.charge(CpuTime.SUBMIT, PUNT_PATH, reqs.size());
    if (atWorker == 0) {
      t += c.charge(CpuTime.SUBMIT, KernelFn.TRY_TO_WAKE_UP, 1);
    }
    for (IoKiocb req : reqs) {
      req.setKiocbPrivate(null);
      req.setAtWorker(true);
    }
    atWorker += reqs.size();
    out.send(c.worker, new Cpu.IoWqEnqueue(t, List.copyOf(reqs), c.self, c.owner));
    return t;
  }

  /**
   * Requests the worker issued ended (a ring without IOPOLL, where nothing else tells the thread
   * that the worker has them no more).
   */
  void workerDone(IoKiocb req) {
    if (req.atWorker()) {
      req.setAtWorker(false);
      atWorker--;
    }
  }

  /** Requests punted to the worker that it has not put on the IOPOLL list yet. */
  long atWorker() {
    return atWorker;
  }

  /**
   * The thread takes the lock at {@code t}, spinning while the worker holds it.
   *
   * @return when it has it
   */
  long lock(long t) {
    return spun(t, uringLock.lock(t));
  }

  /** The thread got the lock at {@code got}, asked at {@code t}: the spin between is lock wait. */
  private long spun(long t, long got) {
    if (got > t) {
      c.charger.charge(
          c.index, CpuTime.LOCK_WAIT, new CostStep(Contention.LOCK_WAIT_URING_LOCK, got - t), 1);
    }
    return got;
  }

  /** The thread drops the lock at {@code t}: a waiting worker gets it then. */
  void unlock(long t, Outbox out) {
    for (Cpu.WantsUringLock m : uringLock.unlock(t)) {
      grant(m, t, out);
    }
  }

  /**
   * Between io_submit_sqes and io_iopoll_check io_uring_enter drops the lock and takes it again: a
   * waiting worker gets in between.
   *
   * @return when the thread has it again
   */
  long relock(long t, Outbox out) {
    List<Cpu.WantsUringLock> granted = new ArrayList<>();
    long got = uringLock.relock(t, granted);
    for (Cpu.WantsUringLock m : granted) {
      grant(m, t, out);
    }
    return spun(t, got);
  }

  /**
   * The worker asks for the lock.
   *
   * @return when it got it and added its request, or -1 if it waits for the thread
   */
  long wants(Cpu.WantsUringLock m, Outbox out) {
    long t = uringLock.wants(m, m.atPs());
    if (t >= 0) {
      grant(m, t, out);
    }
    return t;
  }

  /** The worker has the lock at {@code t}: its request goes on the IOPOLL list. */
  private void grant(Cpu.WantsUringLock m, long t, Outbox out) {
    c.ring.iopollReqIssued(m.req());
    m.req().setAtWorker(false);
    atWorker--;
    out.send(m.worker(), new Cpu.UringUnlocked(t, m.slot()));
  }
}

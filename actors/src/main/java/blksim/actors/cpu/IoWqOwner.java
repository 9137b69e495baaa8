package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.IoKiocb;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The submitter's side of its io-wq: punting the requests whose bio found no tag, and the ring's
 * {@code uring_lock}, which the thread holds while it is inside io_uring_enter and the worker needs
 * to put a request it issued on the IOPOLL list.
 *
 * <p>In 5.16 io_uring_enter takes the lock for io_submit_sqes and again for io_iopoll_check, which
 * keeps it while it polls; the model holds it from the syscall's entry to its return. A worker that
 * asks while it is held spins on it (the owner is running) and gets it when the syscall returns.
 */
final class IoWqOwner {
  /**
   * The requests of {@code reqs} whose bio found no tag: those of the reply's {@code wouldBlock}.
   * Not those whose bio's status says EAGAIN: another bio of the group may have completed on
   * another CPU's poll and been put and handed out again (and failed there) before submit_bio
   * returned, so its status is no longer this submission's.
   */
  static List<IoKiocb> foundNoTag(List<IoKiocb> reqs, List<Bio> wouldBlock) {
    if (wouldBlock.isEmpty()) {
      return List.of();
    }
    Set<Bio> failed = Collections.newSetFromMap(new IdentityHashMap<>());
    failed.addAll(wouldBlock);
    List<IoKiocb> punted = new ArrayList<>();
    for (IoKiocb req : reqs) {
      if (failed.contains(req.kiocbPrivate())) {
        punted.add(req);
      }
    }
    return punted;
  }

  private final CpuCore c;
  private final List<Cpu.WantsUringLock> waiters = new ArrayList<>();
  private boolean locked;
  private long lockedFromPs;
  private long unlockedAtPs;
  private long atWorker;
  private long workerHoldsUntilPs;

  IoWqOwner(CpuCore c) {
    this.c = c;
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
    t += c.charge(CpuTime.SUBMIT, CpuPaths.PUNT_PATH, reqs.size());
    if (atWorker == 0) {
      t += c.charge(CpuTime.SUBMIT, KernelFn.TRY_TO_WAKE_UP, 1);
    }
    for (IoKiocb req : reqs) {
      req.setKiocbPrivate(null);
      req.setAtWorker(true);
    }
    atWorker += reqs.size();
    out.send(c.worker, new Cpu.IoWqEnqueue(t, List.copyOf(reqs), c.self));
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

  /**
   * The thread takes the lock at {@code t}, spinning while the worker holds it.
   *
   * @return when it has it
   */
  long lock(long t) {
    if (workerHoldsUntilPs > t) {
      long waitPs = workerHoldsUntilPs - t;
      c.charger.charge(
          c.index, CpuTime.LOCK_WAIT, new CostStep(Contention.LOCK_WAIT_URING_LOCK, waitPs), 1);
      t = workerHoldsUntilPs;
    }
    locked = true;
    lockedFromPs = t;
    return t;
  }

  /** The thread drops the lock at {@code t}: a waiting worker gets it then. */
  void unlock(long t, Outbox out) {
    locked = false;
    unlockedAtPs = t;
    for (Cpu.WantsUringLock m : waiters) {
      grant(m, t, out);
    }
    waiters.clear();
  }

  /**
   * Between io_submit_sqes and io_iopoll_check io_uring_enter drops the lock and takes it again: a
   * waiting worker gets in between.
   *
   * @return when the thread has it again
   */
  long relock(long t, Outbox out) {
    unlock(t, out);
    return lock(t);
  }

  /**
   * The worker asks for the lock.
   *
   * @return when it got it and added its request, or -1 if it waits for the thread
   */
  long wants(Cpu.WantsUringLock m, Outbox out) {
    if (locked && m.atPs() >= lockedFromPs) {
      waiters.add(m);
      return -1;
    }
    long t = Math.max(m.atPs(), unlockedAtPs);
    grant(m, t, out);
    return t;
  }

  private void grant(Cpu.WantsUringLock m, long t, Outbox out) {
    // The worker holds it for io_iopoll_req_issued, after pulling over the lock's and the list's
    // lines.
    workerHoldsUntilPs =
        t + c.costs.callPs(KernelFn.IO_IOPOLL_REQ_ISSUED) + 2 * c.costs.lineTransferPs();
    c.ring.iopollReqIssued(m.req());
    m.req().setAtWorker(false);
    atWorker--;
    out.send(m.worker(), new Cpu.UringUnlocked(t));
  }
}

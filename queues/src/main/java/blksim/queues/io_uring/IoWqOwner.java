package blksim.queues.io_uring;

import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The submitter thread's side of its io-wq (fs/io_uring.c 5.16): punting the requests whose bio
 * found no tag ({@code io_queue_async_work}), the count of those the worker has, and the ring's
 * {@code uring_lock} ({@link UringLock}) as the thread takes it, with what its waits cost. A worker
 * that gets the lock puts its request on the IOPOLL list ({@code io_iopoll_req_issued}).
 *
 * <p>Plain Java: the caller sends the punts to the worker's CPU and tells each worker that got the
 * lock; {@code W} is what it needs to do so.
 *
 * @param <W> a worker's request for the lock
 */
public final class IoWqOwner<W> {
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

  private final Charger charger;
  private final int cpu;
  private final IoRingCtx ring;
  private final Function<? super W, IoKiocb> reqOf;
  private final UringLock<W> uringLock;

  /** Requests punted to the worker that it has not put on the IOPOLL list (or ended) yet. */
  private long atWorker;

  /**
   * @param reqOf the request a worker's ask for the lock is for
   */
  public IoWqOwner(
      Charger charger,
      int cpu,
      IoRingCtx ring,
      PathCosts costs,
      Function<? super W, IoKiocb> reqOf) {
    this.charger = charger;
    this.cpu = cpu;
    this.ring = ring;
    this.reqOf = reqOf;
    // the worker holds it for io_iopoll_req_issued, after pulling over the lock's and the list's
    // lines
    this.uringLock =
        new UringLock<>(costs.callPs(KernelFn.IO_IOPOLL_REQ_ISSUED) + 2 * costs.lineTransferPs());
  }

  /**
   * io_read saw {@code REQ_F_REISSUE}: each request's bio ended with {@code -EAGAIN} ({@code
   * blkdev_bio_end_io_async}, {@code io_complete_rw_iopoll}); it gets async data and goes to the
   * io-wq. With none of the thread's requests at the worker, the worker is taken to be asleep, and
   * the punt wakes it ({@code io_wqe_activate_free_worker}). A simplification: on a ring without
   * IOPOLL the worker sleeps once its list is empty, with requests it issued still in flight, and
   * the punt that wakes it then is charged no {@code try_to_wake_up}.
   *
   * @return the time after it, when the requests reach the worker's list
   */
  public long punt(long t, List<IoKiocb> reqs) {
    t += charger.charge(cpu, CpuTime.SUBMIT, PUNT_PATH, reqs.size());
    if (atWorker == 0) {
      t += charger.charge(cpu, CpuTime.SUBMIT, KernelFn.TRY_TO_WAKE_UP, 1);
    }
    for (IoKiocb req : reqs) {
      req.setKiocbPrivate(null);
      req.setAtWorker(true);
    }
    atWorker += reqs.size();
    return t;
  }

  /**
   * A request has ended (a ring without IOPOLL, where nothing else tells the thread that the worker
   * has it no more): if the worker had it, it has it no more.
   */
  public void workerDone(IoKiocb req) {
    if (req.atWorker()) {
      req.setAtWorker(false);
      atWorker--;
    }
  }

  /** Requests punted to the worker that it has not put on the IOPOLL list (or ended) yet. */
  public long atWorker() {
    return atWorker;
  }

  /**
   * The thread takes the lock at {@code t}, spinning while the worker holds it.
   *
   * @return when it has it
   */
  public long lock(long t) {
    return spun(t, uringLock.lock(t));
  }

  /** The thread got the lock at {@code got}, asked at {@code t}: the spin between is lock wait. */
  private long spun(long t, long got) {
    if (got > t) {
      charger.charge(
          cpu, CpuTime.LOCK_WAIT, new CostStep(Contention.LOCK_WAIT_URING_LOCK, got - t), 1);
    }
    return got;
  }

  /**
   * The thread drops the lock at {@code t}.
   *
   * @return the workers that spun for it: each got it at {@code t} and put its request on the
   *     IOPOLL list
   */
  public List<W> unlock(long t) {
    List<W> granted = uringLock.unlock(t);
    granted.forEach(this::granted);
    return granted;
  }

  /**
   * Between io_submit_sqes and io_iopoll_check io_uring_enter drops the lock at {@code t} and takes
   * it again: a waiting worker gets in between.
   *
   * @param granted told of the workers that got it at {@code t}, as {@link #unlock}
   * @return when the thread has it again
   */
  public long relock(long t, List<W> granted) {
    List<W> got = new ArrayList<>();
    long again = uringLock.relock(t, got);
    got.forEach(this::granted);
    granted.addAll(got);
    return spun(t, again);
  }

  /**
   * A worker asks for the lock at {@code at}.
   *
   * @return when it got it and put its request on the IOPOLL list, or -1 if it waits for the thread
   */
  public long wants(W w, long at) {
    long t = uringLock.wants(w, at);
    if (t >= 0) {
      granted(w);
    }
    return t;
  }

  /** The worker has the lock: its request goes on the IOPOLL list. */
  private void granted(W w) {
    IoKiocb req = reqOf.apply(w);
    ring.iopollReqIssued(req);
    req.setAtWorker(false);
    atWorker--;
  }
}

package blksim.queues.io_uring;

import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import java.util.ArrayDeque;

/**
 * Models the kernel side of one io_uring instance ({@code struct io_ring_ctx}, fs/io_uring.c in
 * 5.16): it consumes SQEs into requests, keeps the IOPOLL list of issued polled requests, and posts
 * CQEs, keeping those that do not fit on the overflow list until the CQ ring has room.
 */
public final class IoRingCtx {
  private final SqRing sq;
  private final CqRing cq;
  private final ArrayDeque<IoKiocb> reqCache = new ArrayDeque<>();
  private final ArrayDeque<IoKiocb> iopollList = new ArrayDeque<>();
  private final ArrayDeque<Cqe> overflowList = new ArrayDeque<>();
  private final ArrayDeque<IoKiocb> taskList = new ArrayDeque<>();
  private int reqsAllocated;
  private long submitted;
  private long completed;
  private long dropped;
  private long overflowed;

  private final int owner;

  public IoRingCtx(SqRing sq, CqRing cq) {
    this(sq, cq, 0);
  }

  /**
   * @param owner who uses this ring, as its requests name it: the submitter thread's CPU, or, for a
   *     thread that shares a CPU with others, a number of its own
   */
  public IoRingCtx(SqRing sq, CqRing cq, int owner) {
    this.sq = sq;
    this.cq = cq;
    this.owner = owner;
  }

  /** Who uses this ring, as its requests name it ({@link IoKiocb#owner}). */
  public int owner() {
    return owner;
  }

  /**
   * One step of {@code io_submit_sqes}: consumes the next SQE into a request.
   *
   * @return the request, in flight, or null if no SQE is pending
   */
  public IoKiocb submitSqe() {
    Sqe sqe = sq.consume();
    if (sqe == null) {
      return null;
    }
    IoKiocb req = reqCache.pollFirst();
    if (req == null) {
      req = new IoKiocb(reqsAllocated++, owner);
    }
    req.start(sqe);
    submitted++;
    return req;
  }

  /** {@code io_iopoll_req_issued}: the request joins the tail of the IOPOLL list. */
  public void iopollReqIssued(IoKiocb req) {
    iopollList.addLast(req);
  }

  /**
   * {@code io_complete_rw_iopoll}: marks the request completed with {@code res}.
   *
   * @throws InvariantBroken if the request is not in flight (completed twice, or never issued)
   */
  public void completeRwIopoll(IoKiocb req, int res) {
    if (req.state() != IoKiocb.State.IN_FLIGHT) {
      throw new InvariantBroken(
          "io_uring: request " + req.id() + " completed while " + req.state());
    }
    req.complete(res);
  }

  /**
   * {@code io_complete_rw_iopoll} run by another CPU's poll: as {@link #completeRwIopoll}, and the
   * request remembers it, for the line that comes back when this ring flushes it.
   */
  public void completeRwIopollElsewhere(IoKiocb req, int res) {
    if (req.state() != IoKiocb.State.IN_FLIGHT) {
      throw new InvariantBroken(
          "io_uring: request " + req.id() + " completed while " + req.state());
    }
    req.completeElsewhere(res);
  }

  /**
   * {@code io_complete_rw} of a request on a ring without IOPOLL: the request completes and its CQE
   * waits on the task_work list ({@code io_req_task_work_add}) until the submitter runs it.
   *
   * @throws InvariantBroken if the request is not in flight
   */
  public void completeRw(IoKiocb req, int res) {
    completeRwIopoll(req, res);
    taskList.addLast(req);
  }

  /**
   * {@code io_req_complete_failed}: a request that failed at issue posts its CQE at once.
   *
   * @throws InvariantBroken if the request is not in flight
   */
  public void failRequest(IoKiocb req, int res) {
    completeInline(req, res);
  }

  /**
   * A request that completed at issue ({@code io_nop}: {@code __io_req_complete} with {@code
   * IO_URING_F_COMPLETE_DEFER}): {@code io_submit_flush_completions} posts its CQE at the end of
   * the submission and recycles it.
   *
   * @throws InvariantBroken if the request is not in flight
   */
  public void completeInline(IoKiocb req, int res) {
    completeRwIopoll(req, res);
    postCqe(new Cqe(req.sqe().userData(), res, req.sqe().issuedAtPs()));
    req.free();
    reqCache.addFirst(req);
  }

  /** Requests issued whose bio has not completed yet. */
  public long awaitingCompletion() {
    long completedInPoll =
        iopollList.stream().filter(r -> r.state() == IoKiocb.State.COMPLETED).count();
    return submitted - completed - taskList.size() - completedInPoll;
  }

  /**
   * Ring teardown after the thread ended: completions on the task_work list are dropped, as nobody
   * will run it.
   */
  public void dropTaskWorkAtExit() {
    for (IoKiocb req = taskList.pollFirst(); req != null; req = taskList.pollFirst()) {
      req.free();
      reqCache.addFirst(req);
      completed++;
      dropped++;
    }
  }

  /** Requests whose completion waits on the task_work list. */
  public int taskWorkPending() {
    return taskList.size();
  }

  /**
   * {@code tctx_task_work}: posts a CQE for every request on the task_work list, in order, and
   * recycles them.
   *
   * @return CQEs posted
   */
  public int runTaskWork() {
    int nr = 0;
    for (IoKiocb req = taskList.pollFirst(); req != null; req = taskList.pollFirst()) {
      postCqe(new Cqe(req.sqe().userData(), req.res(), req.sqe().issuedAtPs()));
      req.free();
      reqCache.addFirst(req);
      nr++;
    }
    return nr;
  }

  /** The request at the head of the IOPOLL list, the one {@code io_do_iopoll} polls, or null. */
  public IoKiocb iopollHead() {
    return iopollList.peekFirst();
  }

  public boolean iopollListEmpty() {
    return iopollList.isEmpty();
  }

  /**
   * Second half of {@code io_do_iopoll}: posts a CQE for each completed request at the head of the
   * IOPOLL list (the completed prefix), and recycles those requests.
   *
   * @return events found, and how many of them another CPU's poll completed
   */
  public Flushed iopollFlushCompleted() {
    int nr = 0;
    int elsewhere = 0;
    for (IoKiocb req = iopollList.peekFirst();
        req != null && req.state() == IoKiocb.State.COMPLETED;
        req = iopollList.peekFirst()) {
      iopollList.pollFirst();
      postCqe(new Cqe(req.sqe().userData(), req.res(), req.sqe().issuedAtPs()));
      elsewhere += req.completedElsewhere() ? 1 : 0;
      req.free();
      reqCache.addFirst(req);
      nr++;
    }
    return new Flushed(nr, elsewhere);
  }

  /**
   * What {@link #iopollFlushCompleted} flushed.
   *
   * @param posted CQEs posted
   * @param elsewhere of those, requests another CPU's poll completed: their lines come back
   */
  public record Flushed(int posted, int elsewhere) {}

  /** {@code io_cqring_events} after {@code io_cqring_overflow_flush}: CQEs user space can reap. */
  public int cqEvents() {
    while (!overflowList.isEmpty() && cq.tryPost(overflowList.peekFirst())) {
      overflowList.pollFirst();
    }
    return cq.ready();
  }

  /**
   * Ring teardown with requests still in flight (t/io_uring exits without waiting for them):
   * completed requests' CQEs are dropped, as nobody reaps them any more.
   *
   * @return CQEs dropped
   */
  public int dropCompletedAtExit() {
    int nr = 0;
    for (IoKiocb req = iopollList.peekFirst();
        req != null && req.state() == IoKiocb.State.COMPLETED;
        req = iopollList.peekFirst()) {
      iopollList.pollFirst();
      req.free();
      reqCache.addFirst(req);
      completed++;
      dropped++;
      nr++;
    }
    return nr;
  }

  private void postCqe(Cqe cqe) {
    completed++;
    if (!overflowList.isEmpty() || !cq.tryPost(cqe)) {
      overflowList.addLast(cqe);
      overflowed++;
    }
  }

  /** Requests consumed from the SQ ring. */
  public long submitted() {
    return submitted;
  }

  /** Requests whose completion was posted (or dropped at teardown). */
  public long completed() {
    return completed;
  }

  /** CQEs that did not fit in the CQ ring and waited on the overflow list. */
  public long overflowed() {
    return overflowed;
  }

  /** Completions dropped at ring teardown. */
  public long droppedAtExit() {
    return dropped;
  }

  /** Checks that every request came back and every completion was posted once. */
  public void audit(Books books, String name) {
    sq.audit(books, name);
    cq.audit(books, name);
    books.drained(
        iopollList.isEmpty(),
        name + ": " + iopollList.size() + " io_uring requests still on the IOPOLL list");
    books.drainedEqual(
        reqsAllocated, reqCache.size(), name + ": io_uring requests not back in the request cache");
    books.drainedEqual(submitted, completed, name + ": io_uring requests submitted vs completed");
    books.drained(
        overflowList.isEmpty(),
        name + ": " + overflowList.size() + " CQEs still on the overflow list");
  }

  /**
   * What the ring took and posted against what user space counted: {@code accepted} SQEs the kernel
   * took (t/io_uring's done, with those of a call that never returned) and {@code reaped} CQEs.
   */
  public void auditAgainst(long accepted, long reaped, Books books, String name) {
    books.drainedEqual(
        submitted, accepted, name + ": SQEs the kernel accepted vs t/io_uring's done");
    books.drainedEqual(completed - dropped, reaped + cqEvents(), name + ": CQEs posted vs reaped");
  }
}

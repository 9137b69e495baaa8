package blksim.queues.io_uring;

import blksim.queues.books.Books;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Models the io-wq of one submitter task (fs/io-wq.c, 5.16) as far as polled block I/O needs it:
 * one worker and its list of requests that io_uring punted after their non-blocking issue got
 * {@code -EAGAIN} (a tag could not be had under {@code REQ_NOWAIT}).
 *
 * <p>The worker takes the head of the list and issues it again with {@code io_issue_sqe}, without
 * {@code IO_URING_F_NONBLOCK}. A polled bio still carries {@code REQ_NOWAIT} ({@code
 * bio_set_polled}), so with no tag free it fails again and {@code io_wq_submit_work} retries after
 * {@code cond_resched()} until one is. Once issued, the request joins its ring's IOPOLL list under
 * the ring's {@code uring_lock}. The worker sleeps when the list is empty.
 */
public final class IoWq {
  private final ArrayDeque<IoKiocb> work = new ArrayDeque<>();
  private boolean sleeping = true;
  private long enqueued;
  private long issued;
  private long retries;
  private long wakeUps;

  /**
   * {@code io_wq_enqueue} of requests punted by the ring's issue.
   *
   * @return whether the worker slept and this woke it ({@code io_wqe_activate_free_worker})
   */
  public boolean enqueue(List<IoKiocb> reqs) {
    work.addAll(reqs);
    enqueued += reqs.size();
    if (sleeping) {
      sleeping = false;
      wakeUps++;
      return true;
    }
    return false;
  }

  /** The request the worker issues next, or null when it has none and goes to sleep. */
  public IoKiocb next() {
    IoKiocb req = work.peekFirst();
    if (req == null) {
      sleeping = true;
    }
    return req;
  }

  /** The head request's issue failed with {@code -EAGAIN} again: it will be retried. */
  public void retried() {
    retries++;
  }

  /** The head request was issued: it leaves the list. */
  public IoKiocb issued() {
    issued++;
    return work.pollFirst();
  }

  public boolean sleeping() {
    return sleeping;
  }

  /** Requests punted to this io-wq. */
  public long enqueued() {
    return enqueued;
  }

  /** Requests the worker issued. */
  public long issuedCount() {
    return issued;
  }

  /** Issues by the worker that got {@code -EAGAIN} again. */
  public long retries() {
    return retries;
  }

  /** Times the worker was woken from sleep. */
  public long wakeUps() {
    return wakeUps;
  }

  /** Checks that every request punted was issued, and the worker is asleep. */
  public void audit(Books books, String name) {
    books.drainedEqual(enqueued, issued, name + ": requests punted to io-wq vs issued by it");
    books.drained(work.isEmpty(), name + ": " + work.size() + " requests left on the io-wq list");
  }
}

package blksim.queues.io_uring;

import java.util.ArrayList;
import java.util.List;

/**
 * A ring's {@code uring_lock} ({@code struct io_ring_ctx}, fs/io_uring.c 5.16) as its submitter and
 * its io-wq worker take it. io_uring_enter takes it for io_submit_sqes and again for
 * io_iopoll_check, which keeps it while it polls; the model holds it from the syscall's entry to
 * its return, with the one gap between the two ({@link #relock}). The worker takes it in {@code
 * io_iopoll_req_issued} with {@code IO_URING_F_UNLOCKED} to put a request it issued on the IOPOLL
 * list: asking while the submitter holds it, it spins (the owner is running) and gets it when the
 * submitter drops it; it then holds it for {@code io_iopoll_req_issued} itself, and a submitter
 * that comes meanwhile spins until it is done.
 *
 * <p>Plain Java: the caller charges the waits and tells the worker; {@code W} is what it needs to
 * do so.
 *
 * @param <W> a worker's request for the lock
 */
public final class UringLock<W> {
  private final long workerHoldsPs;
  private final List<W> waiters = new ArrayList<>();
  private boolean locked;
  private long lockedFromPs;
  private long unlockedAtPs;
  private long workerHoldsUntilPs;

  /**
   * @param workerHoldsPs how long the worker holds the lock once it has it: {@code
   *     io_iopoll_req_issued}, after pulling over the lock's and the list's cache lines
   */
  public UringLock(long workerHoldsPs) {
    this.workerHoldsPs = workerHoldsPs;
  }

  /**
   * The submitter takes the lock at {@code t}, spinning while the worker holds it.
   *
   * @return when it has it; what lies between {@code t} and then is the submitter's wait
   */
  public long lock(long t) {
    t = Math.max(t, workerHoldsUntilPs);
    locked = true;
    lockedFromPs = t;
    return t;
  }

  /**
   * The submitter drops the lock at {@code t}.
   *
   * @return the workers that spun for it, which get it at {@code t}, in the order they asked
   */
  public List<W> unlock(long t) {
    locked = false;
    unlockedAtPs = t;
    if (waiters.isEmpty()) {
      return List.of();
    }
    List<W> granted = List.copyOf(waiters);
    waiters.clear();
    workerHoldsUntilPs = t + workerHoldsPs;
    return granted;
  }

  /**
   * Between io_submit_sqes and io_iopoll_check io_uring_enter drops the lock at {@code t} and takes
   * it again: a waiting worker gets in between.
   *
   * @param granted told of the workers that got it at {@code t}
   * @return when the submitter has it again
   */
  public long relock(long t, List<W> granted) {
    granted.addAll(unlock(t));
    return lock(t);
  }

  /**
   * Worker {@code w} asks for the lock at {@code at}: it spins while the submitter holds it since
   * then, else has it at once (after the submitter's last drop).
   *
   * @return when it has it, or -1 if it waits for {@link #unlock}
   */
  public long wants(W w, long at) {
    if (locked && at >= lockedFromPs) {
      waiters.add(w);
      return -1;
    }
    long t = Math.max(at, unlockedAtPs);
    workerHoldsUntilPs = t + workerHoldsPs;
    return t;
  }

  /** Whether a worker spins for the lock. */
  public boolean contended() {
    return !waiters.isEmpty();
  }
}

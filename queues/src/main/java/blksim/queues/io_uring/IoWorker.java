package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * One thread's io-wq worker ({@code struct io_worker}, fs/io-wq.c 5.16) as plain Java: its list of
 * punted requests ({@link IoWq}), its state, and the path of {@code io_worker_handle_work} and
 * {@code io_wq_submit_work} with their charges. It issues the head request again without {@code
 * IO_URING_F_NONBLOCK}; where the path leaves io-wq it returns a {@link WorkerCall}, and the CPU
 * that runs it (a task of that CPU) makes the call and brings its answer back.
 *
 * <ul>
 *   <li>On an IOPOLL ring the bio stays REQ_NOWAIT ({@code bio_set_polled}): with no tag it ends
 *       with {@code -EAGAIN}, {@code io_read} asks for a reissue and {@code io_wq_submit_work}
 *       tries again after {@code cond_resched()}; once issued, the request goes on the ring's
 *       IOPOLL list under its {@code uring_lock} ({@code io_iopoll_req_issued} with {@code
 *       IO_URING_F_UNLOCKED}, {@link UringLockWait}). On its thread's CPU the retries turn in
 *       closed form ({@link WorkerSpin}).
 *   <li>Without IOPOLL the issue blocks: with no tag it sleeps on the queue's tag wait queue until
 *       a freed tag wakes it; a bio that ends in {@code queue_rq} runs {@code io_complete_rw},
 *       which queues its thread's task_work.
 *   <li>It sleeps when its list is empty ({@code schedule_timeout}), and the first punt after that
 *       wakes it ({@code io_wqe_activate_free_worker}).
 * </ul>
 */
public final class IoWorker {
  /**
   * The io-wq worker's issue of a request, up to the bio allocation: no io_submit_sqes and no file
   * reference, the request has them; no prep and no import, its async data holds the iterator.
   */
  public static final KernelFn[] WORKER_ISSUE_PATH = {
    KernelFn.IO_WQ_SUBMIT_WORK,
    KernelFn.IO_ISSUE_SQE,
    KernelFn.IO_READ,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO
  };

  /** A worker's issue that failed again: the bio ends with -EAGAIN, then cond_resched. */
  public static final KernelFn[] WORKER_RETRY_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC, KernelFn.BIO_RELEASE_PAGES, KernelFn.COND_RESCHED
  };

  /** Where the worker is. */
  public enum State {
    /** Asleep with no work: {@code io_wqe_worker}'s {@code schedule_timeout}. */
    IDLE,
    /** Woken for work, not yet switched in. */
    WOKEN,
    /** Asleep on a tag wait queue (a blocking issue); a freed tag wakes it. */
    TAG_SLEEP,
    /** On its CPU, between two calls. */
    RUNNING,
    /** A call of its is out: its CPU is busy with it until the answer comes. */
    CALL_OUT,
    /** Its ring's {@code uring_lock} asked for: it spins or sleeps until it has it. */
    LOCK_WAIT,
    /**
     * Asleep in the {@code uring_lock} mutex: a task woken on its CPU asked it to reschedule, which
     * ends the mutex's optimistic spin ({@code mutex_optimistic_spin} checks {@code need_resched});
     * the lock's grant wakes it.
     */
    LOCK_SLEEP,
    /** Turning in the {@code -EAGAIN} loop on its thread's CPU ({@link WorkerSpin}). */
    SPINNING
  }

  private final String name;
  private final int cpu;
  private final Charger charger;
  private final boolean iopoll;
  private final IoWq wq = new IoWq();
  private final UringLockWait lock;

  /** The {@code -EAGAIN} loop in closed form, on its thread's CPU of an IOPOLL ring; else null. */
  private final WorkerSpin spin;

  /** Whether it runs on its thread's CPU. */
  private final boolean shared;

  private State state = State.IDLE;
  private IoKiocb current;
  private long tagSleeps;

  /** When its CPU has finished switching the sleeping worker out: a wake-up cannot start sooner. */
  private long freeAtPs;

  /** The bio that ended in queue_rq goes back, then the request onto the IOPOLL list. */
  private boolean lockAfterPut;

  /** The bio that found no tag goes back, then {@code cond_resched()} and the issue again. */
  private boolean retryAfterPut;

  /**
   * @param name the worker's name, as its books give it
   * @param cpu the CPU it runs on, which its charges go to
   * @param charger its own
   * @param iopoll IORING_SETUP_IOPOLL of its ring
   * @param lineTransferPs a cache line from another CPU, which the uring_lock's mutex and the
   *     IOPOLL list's tail are
   * @param shared whether it runs on its thread's CPU
   * @param spin its {@code -EAGAIN} loop in closed form, when it shares its thread's CPU on an
   *     IOPOLL ring; else null ({@link #of} makes it so; a test may give its own)
   */
  IoWorker(
      String name,
      int cpu,
      Charger charger,
      boolean iopoll,
      long lineTransferPs,
      boolean shared,
      WorkerSpin spin) {
    if (spin != null && !(shared && iopoll)) {
      throw new IllegalArgumentException(name + ": a spin in closed form off its thread's CPU");
    }
    this.name = name;
    this.shared = shared;
    this.cpu = cpu;
    this.charger = charger;
    this.iopoll = iopoll;
    this.lock = new UringLockWait(cpu, charger, lineTransferPs);
    this.spin = spin;
  }

  /**
   * The worker of a thread's ring, on {@code cpu}: on its thread's CPU ({@code shared}) of an
   * IOPOLL ring its {@code -EAGAIN} loop turns in closed form ({@link WorkerSpin}), which a freed
   * tag or the tick that ends its slice ({@code reschedTick}) ends; elsewhere it turns alone, each
   * retry a step.
   *
   * @param allocCache whether its bios come from the per-CPU cache
   */
  public static IoWorker of(
      String name,
      int cpu,
      Charger charger,
      boolean iopoll,
      long lineTransferPs,
      boolean shared,
      boolean allocCache,
      LongUnaryOperator reschedTick) {
    WorkerSpin spin =
        shared && iopoll ? new WorkerSpin(charger, cpu, allocCache, reschedTick) : null;
    return new IoWorker(name, cpu, charger, iopoll, lineTransferPs, shared, spin);
  }

  /**
   * {@code io_wq_enqueue}: requests of the thread's ring punted to the worker.
   *
   * @return whether this woke it from its sleep: its CPU runs it when its run queue picks it
   */
  public boolean enqueue(List<IoKiocb> reqs) {
    if (!wq.enqueue(reqs)) {
      return false;
    }
    if (state != State.IDLE) {
      throw new InvariantBroken(name + ": woken for work while " + state);
    }
    state = State.WOKEN;
    return true;
  }

  /** Switched in after a wake-up for work at {@code t}: {@code schedule()}, then the work. */
  public WorkerCall switchedIn(long t) {
    if (state != State.WOKEN) {
      throw new InvariantBroken(name + ": switched in while " + state);
    }
    state = State.RUNNING;
    return issueNext(t + schedule());
  }

  /**
   * The request's bio, allocated at {@code t}: {@code __blkdev_direct_IO_async} sets it up ({@link
   * IoRw#blkdevDirectIoAsync}, no REQ_NOWAIT: io-wq's blocking issue) and takes its user pages,
   * then {@code submit_bio}.
   *
   * @param queuePolls {@code QUEUE_FLAG_POLL} of the request's queue
   */
  public WorkerCall bioAllocated(Bio bio, long t, boolean queuePolls) {
    answered(State.CALL_OUT);
    boolean polled = IoRw.blkdevDirectIoAsync(bio, current, iopoll, false, queuePolls);
    t += charger.charge(cpu, CpuTime.SUBMIT, IoRw.PAGES_PATH, 1);
    return send(new WorkerCall.SubmitBio(t, bio, current, polled));
  }

  /**
   * {@code submit_bio} returned at {@code t}: what {@code queue_rq} ended, and what found no tag.
   */
  public WorkerCall submitted(List<Bio> ended, List<Bio> wouldBlock, long t) {
    answered(State.CALL_OUT);
    if (!iopoll) {
      wq.issued();
      if (ended.isEmpty()) {
        // in flight: its interrupt ends it, and the submitter gets its CQE by task_work
        return issueNext(t);
      }
      // ended in queue_rq (irqmode 0 or 1): io_complete_rw queues the submitter's task_work
      for (int i = 0; i < ended.size(); i++) {
        t += charger.charge(cpu, CpuTime.SUBMIT, IoRw.IRQ_END_PATH, 1);
      }
      return send(new WorkerCall.PutBios(t, ended, ended));
    }
    if (!ended.isEmpty()) {
      // a bio no longer polled (no poll queue) ended in queue_rq: io_complete_rw_iopoll marks the
      // request done, bio_put, then io_iopoll_req_issued lists it, where the next poll finds it
      t += charger.charge(cpu, CpuTime.SUBMIT, IoRw.END_IO_PATH, 1);
      lockAfterPut = true;
      return send(new WorkerCall.PutBios(t, ended, List.of(ended.get(0))));
    }
    if (!wouldBlock.isEmpty()) {
      // still no tag: the bio ends with -EAGAIN, io_read asks for a reissue, cond_resched, again
      wq.retried();
      current.setKiocbPrivate(null);
      t += charger.charge(cpu, CpuTime.SUBMIT, WORKER_RETRY_PATH, 1);
      retryAfterPut = true;
      return send(new WorkerCall.PutBios(t, wouldBlock, List.of()));
    }
    lock.asked(t);
    state = State.LOCK_WAIT;
    return new WorkerCall.UringLock(t, current);
  }

  /** The bios it put back are back at {@code t}: on to what comes after them. */
  public WorkerCall put(long t) {
    answered(State.CALL_OUT);
    if (lockAfterPut) {
      lockAfterPut = false;
      lock.asked(t);
      state = State.LOCK_WAIT;
      return new WorkerCall.UringLock(t, current);
    }
    if (retryAfterPut) {
      retryAfterPut = false;
      if (spin == null) {
        return issueNext(t);
      }
      state = State.SPINNING;
      return new WorkerCall.Spin(t);
    }
    return issueNext(t);
  }

  /** Its blocking issue found no tag: asleep on the tag wait queue from {@code t}. */
  public void slept(long t) {
    answered(State.CALL_OUT);
    state = State.TAG_SLEEP;
    tagSleeps++;
    freeAtPs = t;
  }

  /** Switched in for the tag it slept for, at {@code t}: {@code blk_mq_get_tag} tries again. */
  public WorkerCall woken(long t) {
    answered(State.TAG_SLEEP);
    return send(new WorkerCall.TagRetry(t, current.kiocbPrivate()));
  }

  /**
   * The ring's {@code uring_lock} is the worker's at {@code at}: {@code io_iopoll_req_issued} puts
   * the request on the IOPOLL list ({@link UringLockWait#granted}), and the next one is issued.
   */
  public WorkerCall lockGranted(long at) {
    if (state == State.LOCK_SLEEP) {
      state = State.LOCK_WAIT; // woken by the grant, switched in at {@code at}
    }
    answered(State.LOCK_WAIT);
    long t = lock.granted(at);
    wq.issued();
    return issueNext(t);
  }

  /**
   * The spin ended at its {@code cond_resched} at {@code t} ({@link #spinEnds}): the issue again.
   */
  public WorkerCall rescheduled(long t) {
    answered(State.CALL_OUT);
    return issueNext(t);
  }

  /** The spin it starts ({@link WorkerCall.Spin}), at {@code t}: its number. */
  public long spinFrom(long t) {
    if (state != State.SPINNING) {
      throw new InvariantBroken(name + ": a spin while " + state);
    }
    return spin.start(t);
  }

  /**
   * A spin started, and what can end it besides what its CPU takes: a tag freed on the queue before
   * the tick ({@code tagUntilPs}, -1 when the tick is now), and the tick that ends its slice
   * ({@code sliceEndsPs}, -1 while it runs alone and no tick asks).
   */
  public record SpinStarted(long id, long tagUntilPs, long sliceEndsPs) {}

  /** The spin it starts at {@code t} ({@link #spinFrom}), with what ends it. */
  public SpinStarted startSpin(long t) {
    long id = spinFrom(t);
    long tick = spin.reschedTick(t);
    return new SpinStarted(
        id, tick > t ? tick : -1, tick == Long.MAX_VALUE ? -1 : Math.max(t, tick));
  }

  /**
   * Whether it spins for its ring's {@code uring_lock} while the lock's owner, its thread, runs on
   * another CPU: the mutex's optimistic spin ({@code mutex_spin_on_owner}), which ends when the
   * owner drops the lock or stops running, or at a {@code need_resched} of its own CPU. On its
   * thread's CPU the owner does not run while it waits.
   */
  public boolean spinsOnRunningOwner() {
    return !shared && waitsForLock();
  }

  /**
   * The spin {@code id} ends at the first turn that sees what came at {@code at}: a freed tag, the
   * tick that ends its slice, or something else its CPU takes at the turn's {@code cond_resched}
   * ({@code why}).
   *
   * @return the {@code cond_resched} where it ends, where {@link #rescheduled} goes on; or -1 if
   *     that spin is over already
   */
  public long spinEnds(long id, long at, WorkerSpin.End why) {
    if (state != State.SPINNING) {
      return -1;
    }
    long t = spin.stop(id, at, why);
    if (t >= 0) {
      state = State.CALL_OUT; // at its cond_resched: its CPU's step boundary
    }
    return t;
  }

  /** The spin under way, or -1. */
  public long spinning() {
    return state == State.SPINNING ? spin.id() : -1;
  }

  /** io_worker_handle_work: issue the head request, or sleep when there is none. */
  private WorkerCall issueNext(long t) {
    current = wq.next();
    if (current == null) {
      state = State.IDLE;
      freeAtPs = t + schedule(); // schedule_timeout: the CPU is free once it is switched out
      return new WorkerCall.Sleep(freeAtPs);
    }
    t += charger.charge(cpu, CpuTime.SUBMIT, WORKER_ISSUE_PATH, 1);
    return send(new WorkerCall.AllocBio(t));
  }

  private WorkerCall send(WorkerCall call) {
    state = State.CALL_OUT;
    return call;
  }

  private void answered(State expected) {
    if (state != expected) {
      throw new InvariantBroken(name + ": an answer while " + state + ", not " + expected);
    }
    state = State.RUNNING;
  }

  private long schedule() {
    return charger.charge(cpu, CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
  }

  /** Whether its bio that found no tag was just put back: it is at its {@code cond_resched}. */
  public boolean atCondResched() {
    return retryAfterPut;
  }

  /** A call of its is out, or it spins: its CPU is busy with it. */
  public boolean inFlight() {
    return state == State.CALL_OUT || state == State.LOCK_WAIT || state == State.SPINNING;
  }

  /** Whether it waits for the ring's {@code uring_lock}: its CPU takes interrupts meanwhile. */
  public boolean waitsForLock() {
    return state == State.LOCK_WAIT;
  }

  /**
   * A task woken on its CPU at {@code t} asks the worker, spinning for the lock, to reschedule: the
   * mutex's optimistic spin ends and it sleeps until the lock is granted ({@code
   * __mutex_lock_common}'s {@code schedule_preempt_disabled}); its CPU is free once it is switched
   * out.
   */
  public void lockSleeps(long t) {
    if (state != State.LOCK_WAIT) {
      throw new InvariantBroken(name + ": a mutex sleep while " + state);
    }
    lock.sleeps(t);
    state = State.LOCK_SLEEP;
    freeAtPs = t + schedule();
  }

  /** An interrupt took {@code ps} of its CPU while it waited for the lock. */
  public void interrupted(long ps) {
    lock.interrupted(ps);
  }

  /** Woken for work and not yet switched in. */
  public boolean woken() {
    return state == State.WOKEN;
  }

  /** The request it issues, or null. */
  public IoKiocb current() {
    return current;
  }

  public State state() {
    return state;
  }

  /** From when its CPU is free of it: switched out asleep, or, waiting for the lock, asked. */
  public long freeAtPs() {
    return state == State.LOCK_WAIT ? lock.askedAtPs() : freeAtPs;
  }

  public IoWq wq() {
    return wq;
  }

  /** Time spent spinning for the ring's uring_lock, in ps. */
  public long lockWaitPs() {
    return lock.waitedPs();
  }

  /** Slices the tick ended while the worker spun for a tag on its thread's CPU. */
  public long spinSlices() {
    return spin == null ? 0 : spin.slicesEnded();
  }

  /** Spins that a freed tag ended. */
  public long spinsEndedByTag() {
    return spin == null ? 0 : spin.tagsSeen();
  }

  /** The time of all its spins, in ps. */
  public long spunPs() {
    return spin == null ? 0 : spin.spunPs();
  }

  /** Times the worker slept on a tag wait queue. */
  public long tagSleeps() {
    return tagSleeps;
  }

  /** Every request punted was issued, none is left, and the worker ends asleep. */
  public void audit(Books books) {
    wq.audit(books, name);
    books.drained(current == null, name + ": the io-wq worker was left with a request");
    books.drained(
        state == State.IDLE, name + ": the io-wq worker did not end asleep (" + state + ")");
  }
}

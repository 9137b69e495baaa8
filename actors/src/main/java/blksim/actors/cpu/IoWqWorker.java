package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.IoWq;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * One thread's io-wq worker ({@code struct io_worker}, fs/io-wq.c, 5.16), a task of the CPU it runs
 * on ({@link Task}): a CPU with no submitter, or, when the machine has none left, its thread's,
 * where it takes its turns on the run queue with the thread. It issues the requests the thread
 * punted, one at a time ({@code io_worker_handle_work}, {@code io_wq_submit_work}).
 *
 * <p>On an IOPOLL ring each bio is REQ_NOWAIT ({@code bio_set_polled}): the worker retries it after
 * {@code cond_resched()} until it gets a tag, and puts each issued request on the ring's IOPOLL
 * list under the ring's {@code uring_lock} ({@link UringLockWait}), spinning while the thread holds
 * it. On its thread's CPU only the thread's polling frees its tags, so the worker turns in that
 * loop until the run queue asks it to reschedule or another CPU frees a tag ({@link WorkerSpin});
 * with a CPU of its own each retry is a step of the model. Without IOPOLL the issue blocks: with no
 * tag the worker sleeps on the queue's tag wait queue until a freed tag wakes it.
 *
 * <p>Its schedule is the CPU's ({@link CpuSchedule}): it is woken for work ({@code
 * io_wqe_activate_free_worker}) or for a tag, switched in where the run queue picks it, and sleeps
 * when it has no work; the interrupts of what it issues are its CPU's, on the CPU's interrupt path.
 */
public final class IoWqWorker {
  /**
   * The io-wq worker's issue of a request, up to the bio allocation: no io_submit_sqes and no file
   * reference, the request has them; no prep and no import, its async data holds the iterator.
   */
  static final KernelFn[] WORKER_ISSUE_PATH = {
    KernelFn.IO_WQ_SUBMIT_WORK,
    KernelFn.IO_ISSUE_SQE,
    KernelFn.IO_READ,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO
  };

  /** A worker's issue that failed again: the bio ends with -EAGAIN, then cond_resched. */
  static final KernelFn[] WORKER_RETRY_PATH = {
    KernelFn.BLKDEV_BIO_END_IO_ASYNC, KernelFn.BIO_RELEASE_PAGES, KernelFn.COND_RESCHED
  };

  /** Where the worker is. */
  private enum State {
    /** Asleep with no work: {@code io_wqe_worker}'s {@code schedule_timeout}. */
    IDLE,
    /** Woken for work, not yet switched in. */
    WOKEN,
    /** Asleep on a tag wait queue (a blocking issue); a freed tag wakes it. */
    TAG_SLEEP,
    /** On its CPU, between two calls. */
    RUNNING,
    /** A call of its is out: the CPU is busy with it until the answer comes. */
    CALL_OUT,
    /** Its ring's {@code uring_lock} asked for: it spins or sleeps until it has it. */
    LOCK_WAIT,
    /** Turning in the {@code -EAGAIN} loop on its thread's CPU ({@link WorkerSpin}). */
    SPINNING
  }

  private final String name;
  private final int thread;
  private final int slot;
  private final ThisCpu cpu;
  private final SimRef<BioSetActor.Reply> biosetReplies;
  private final SimRef<BlockDevice.Reply> blockReplies;
  private final CpuConfig cfg;
  private final Charger charger;
  private final IoWq wq = new IoWq();
  private final UringLockWait lock;

  /** The {@code -EAGAIN} loop in closed form, on its thread's CPU of an IOPOLL ring; else null. */
  private final WorkerSpin spin;

  /** Its thread's CPU, whose ring it issues for. */
  private final SimRef<Cpu.Command> owner;

  /** Its task on its CPU, set when the task is made. */
  Task task;

  private State state = State.IDLE;
  private IoKiocb current;
  private SimRef<BlockDevice.Command> lastTo;
  private long tagSleeps;

  /** When the CPU has finished switching the sleeping worker out: a wake-up cannot start sooner. */
  private long freeAtPs;

  /** The bio that ended in queue_rq goes back, then the request onto the IOPOLL list. */
  private boolean lockAfterPut;

  /** The bio that found no tag goes back, then {@code cond_resched()} and the issue again. */
  private boolean retryAfterPut;

  /**
   * @param name the worker's name, as its books and its ledger give it ({@code cpuN-iou-wrkT})
   * @param thread the t/io_uring thread whose ring it works for
   * @param slot its place on its CPU
   * @param cpu the CPU it runs on
   * @param charger its own, whose ledger and call variation are the worker's
   * @param owner its thread's CPU
   * @param cfg its thread's files, mapped to the hardware queues of its CPU
   * @param shared whether it shares its thread's CPU
   * @param reschedTick the tick at or after a time at which its CPU's run queue asks the running
   *     task to reschedule, or {@link Long#MAX_VALUE} while it runs alone
   */
  IoWqWorker(
      String name,
      int thread,
      int slot,
      ThisCpu cpu,
      Charger charger,
      SimRef<Cpu.Command> owner,
      CpuConfig cfg,
      boolean shared,
      LongUnaryOperator reschedTick) {
    this.name = name;
    this.thread = thread;
    this.slot = slot;
    this.cpu = cpu;
    this.biosetReplies = cpu.self.adapt(r -> new Cpu.FromBioSet(slot, r));
    this.blockReplies = cpu.self.adapt(r -> new Cpu.FromBlock(slot, r));
    this.cfg = cfg;
    this.charger = charger;
    this.owner = owner;
    this.lock = new UringLockWait(cpu.index, charger, cpu.costs.lineTransferPs());
    this.spin =
        shared && cfg.iopoll()
            ? new WorkerSpin(charger, cpu.index, cfg.allocCache(), reschedTick)
            : null;
  }

  /**
   * {@code io_queue_async_work}: requests of the thread's ring punted to the worker.
   *
   * @return whether this woke it from its sleep: its CPU runs it when the run queue picks it
   */
  boolean enqueue(List<IoKiocb> reqs) {
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
  void switchedIn(long t, Outbox out) {
    if (state != State.WOKEN) {
      throw new InvariantBroken(name + ": switched in while " + state);
    }
    state = State.RUNNING;
    issueNext(t + schedule(), out);
  }

  /** The answer to the worker's call, at a step boundary of its CPU. */
  void handle(SimMessage m, Outbox out) {
    if (m instanceof BioSetActor.Put p) {
      answered(State.CALL_OUT);
      if (lockAfterPut) {
        lockAfterPut = false;
        askUringLock(p.atPs(), out);
      } else if (retryAfterPut) {
        retryAfterPut = false;
        retry(p.atPs(), out);
      } else {
        issueNext(p.atPs(), out);
      }
    } else if (m instanceof BioSetActor.Allocated a) {
      answered(State.CALL_OUT);
      onBiosAllocated(a, out);
    } else if (m instanceof BlockDevice.Submitted q) {
      answered(State.CALL_OUT);
      onBiosQueued(q, out);
    } else if (m instanceof BlockDevice.Slept s) {
      answered(State.CALL_OUT);
      state = State.TAG_SLEEP;
      tagSleeps++;
      freeAtPs = s.atPs();
    } else if (m instanceof BlockDevice.Woken w) {
      answered(State.TAG_SLEEP);
      // switched in for the tag: blk_mq_get_tag tries again
      state = State.CALL_OUT;
      out.send(lastTo, new BlockDevice.TagRetry(w.atPs(), call(), List.of(current.kiocbPrivate())));
    } else if (m instanceof Cpu.UringUnlocked u) {
      answered(State.LOCK_WAIT);
      long t = lock.granted(u.atPs());
      wq.issued();
      issueNext(t, out);
    } else if (m instanceof Cpu.Resched r) {
      // the spin ended at a cond_resched (a freed tag, or the run queue kept it on the CPU): again
      answered(State.CALL_OUT);
      issueNext(r.atPs(), out);
    } else {
      throw new InvariantBroken(name + ": not a reply to the io-wq worker: " + m);
    }
  }

  private void answered(State expected) {
    if (state != expected) {
      throw new InvariantBroken(name + ": an answer while " + state + ", not " + expected);
    }
    state = State.RUNNING;
  }

  private BlockDevice.Call call() {
    return new BlockDevice.Call(
        cpu.index, slot, CpuTime.SUBMIT, blockReplies, cpu.interrupts, cpu.irqBlockReplies);
  }

  /** io_worker_handle_work: issue the head request, or sleep when there is none. */
  private void issueNext(long t, Outbox out) {
    current = wq.next();
    if (current == null) {
      state = State.IDLE;
      freeAtPs = t + schedule(); // schedule_timeout: the CPU is free once it is switched out
      return;
    }
    t += charger.charge(cpu.index, CpuTime.SUBMIT, WORKER_ISSUE_PATH, 1);
    send(
        cpu.bioset,
        new BioSetActor.AllocBios(
            t,
            cpu.index,
            CpuTime.SUBMIT,
            1,
            cfg.allocCache(),
            cfg.nrVecs(),
            KernelFn.BIO_ALLOC_KIOCB,
            biosetReplies),
        out);
  }

  private void onBiosAllocated(BioSetActor.Allocated m, Outbox out) {
    Bio bio = m.bios().get(0);
    SimRef<BlockDevice.Command> to = CpuCore.setUpBio(bio, current, cfg, cpu.index, false);
    long t = m.atPs() + charger.charge(cpu.index, CpuTime.SUBMIT, IoRw.PAGES_PATH, 1);
    lastTo = to;
    send(to, new BlockDevice.SubmitBio(t, call(), List.of(bio)), out);
  }

  private void onBiosQueued(BlockDevice.Submitted m, Outbox out) {
    if (!cfg.iopoll()) {
      wq.issued();
      if (m.ended().isEmpty()) {
        // in flight: its interrupt ends it, and the submitter gets its CQE by task_work
        issueNext(m.atPs(), out);
        return;
      }
      // ended in queue_rq (irqmode 0 or 1): io_complete_rw queues the submitter's task_work here
      long t = m.atPs();
      List<Cpu.Completion> done = new ArrayList<>(m.ended().size());
      for (Bio bio : m.ended()) {
        t += charger.charge(cpu.index, CpuTime.SUBMIT, IoRw.IRQ_END_PATH, 1);
        done.add(completion(bio));
      }
      out.send(owner, new Cpu.CompletedElsewhere(t, done));
      putBios(t, m.ended(), out);
      return;
    }
    if (!m.ended().isEmpty()) {
      // a bio no longer polled (no poll queue) ended in queue_rq: io_complete_rw_iopoll marks the
      // request done, bio_put, then io_iopoll_req_issued lists it, where the next poll finds it
      long t = m.atPs() + charger.charge(cpu.index, CpuTime.SUBMIT, IoRw.END_IO_PATH, 1);
      Bio bio = m.ended().get(0);
      out.send(owner, new Cpu.CompletedElsewhere(t, List.of(completion(bio))));
      lockAfterPut = true;
      putBios(t, m.ended(), out);
      return;
    }
    if (!m.wouldBlock().isEmpty()) {
      // Still no tag: the bio ends with -EAGAIN, io_read asks for a reissue, cond_resched, again.
      wq.retried();
      current.setKiocbPrivate(null);
      long t = m.atPs() + charger.charge(cpu.index, CpuTime.SUBMIT, WORKER_RETRY_PATH, 1);
      retryAfterPut = true;
      putBios(t, m.wouldBlock(), out);
      return;
    }
    askUringLock(m.atPs(), out);
  }

  private void putBios(long t, List<Bio> bios, Outbox out) {
    send(
        cpu.bioset,
        new BioSetActor.PutBios(t, cpu.index, CpuTime.SUBMIT, bios, biosetReplies),
        out);
  }

  /**
   * After {@code cond_resched}, the issue again. On its thread's CPU the loop turns in closed form
   * until a tag is freed or the run queue asks it to reschedule ({@link WorkerSpin}).
   */
  private void retry(long t, Outbox out) {
    if (spin == null) {
      issueNext(t, out);
      return;
    }
    state = State.SPINNING;
    spin.start(t, lastTo, call(), cpu.self, slot, out);
  }

  /**
   * The spin {@code id} ends at the first turn that sees what came at {@code at}: a freed tag, the
   * tick that ends its slice, or something else its CPU takes at the turn's {@code cond_resched}
   * ({@code why}).
   *
   * @return the {@code cond_resched} where it ends, or -1 if that spin is over already
   */
  long spinEnds(long id, long at, WorkerSpin.End why) {
    if (state != State.SPINNING) {
      return -1;
    }
    long t = spin.stop(id, at, why);
    if (t >= 0) {
      state = State.CALL_OUT; // at its cond_resched: the CPU's step boundary, a Resched
    }
    return t;
  }

  /** The spin under way, or -1: what a cut of it names. */
  long spinning() {
    return state == State.SPINNING ? spin.id() : -1;
  }

  /** io_iopoll_req_issued with IO_URING_F_UNLOCKED: the ring's uring_lock, from the submitter. */
  private void askUringLock(long t, Outbox out) {
    lock.asked(t);
    state = State.LOCK_WAIT;
    out.send(owner, new Cpu.WantsUringLock(t, current, cpu.self, slot));
  }

  private <M extends SimMessage> void send(SimRef<M> to, M message, Outbox out) {
    state = State.CALL_OUT;
    out.send(to, message);
  }

  private static Cpu.Completion completion(Bio bio) {
    return new Cpu.Completion((IoKiocb) bio.owner(), CpuCore.res(bio));
  }

  private long schedule() {
    return charger.charge(cpu.index, CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
  }

  /**
   * Whether {@code m} finds the worker at its {@code cond_resched}: the bio that found no tag put
   * back, before it issues again, or the end of a spin. The CPU schedules there.
   */
  boolean condReschedAt(SimMessage m) {
    return m instanceof BioSetActor.Put && retryAfterPut || m instanceof Cpu.Resched;
  }

  /** A call of its is out, or it spins: the CPU is busy with it. */
  boolean inFlight() {
    return state == State.CALL_OUT || state == State.LOCK_WAIT || state == State.SPINNING;
  }

  /** Whether it waits for the ring's {@code uring_lock}: its CPU takes interrupts meanwhile. */
  boolean waitsForLock() {
    return state == State.LOCK_WAIT;
  }

  /** An interrupt took {@code ps} of its CPU while it waited for the lock. */
  void interrupted(long ps) {
    lock.interrupted(ps);
  }

  /** Woken for work and not yet switched in. */
  boolean woken() {
    return state == State.WOKEN;
  }

  /** Whether it sleeps on a tag wait queue. */
  boolean tagSleeping() {
    return state == State.TAG_SLEEP;
  }

  /** From when its CPU is free of it: switched out asleep, or, waiting for the lock, asked. */
  public long freeAtPs() {
    return state == State.LOCK_WAIT ? lock.askedAtPs() : freeAtPs;
  }

  int slot() {
    return slot;
  }

  /** The t/io_uring thread it works for. */
  public int thread() {
    return thread;
  }

  /** The CPU it runs on. */
  public int index() {
    return cpu.index;
  }

  public IoWq wq() {
    return wq;
  }

  /** Time spent spinning for the ring's uring_lock, in ps. */
  public long lockWaitPs() {
    return lock.waitedPs();
  }

  /** The worker's name, as its books give it. */
  public String name() {
    return name;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }

  /** Slices the tick ended while the worker spun for a tag on its thread's CPU. */
  public long spinSlices() {
    return spin == null ? 0 : spin.slicesEnded();
  }

  /** Spins that ended on a tag another CPU freed. */
  public long spinsEndedByTag() {
    return spin == null ? 0 : spin.tagsSeen();
  }

  /** The time of all its spins, in ps. */
  public long spunPs() {
    return spin == null ? 0 : spin.spunPs();
  }

  /** What it ran and waited on its CPU's run queue, or null if it never ran. */
  public blksim.queues.kernel.sched.SchedEntity sched() {
    return task.se;
  }

  /** Times the worker slept on a tag wait queue. */
  public long tagSleeps() {
    return tagSleeps;
  }

  public void audit(Books books) {
    wq.audit(books, name);
    books.drained(current == null, name + ": the io-wq worker was left with a request");
    books.drained(
        state == State.IDLE, name + ": the io-wq worker did not end asleep (" + state + ")");
  }
}

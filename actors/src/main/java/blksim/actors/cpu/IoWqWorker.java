package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.ForeignCompletions;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoWorker;
import blksim.queues.io_uring.IoWq;
import blksim.queues.io_uring.WorkerCall;
import blksim.queues.io_uring.WorkerSpin;
import blksim.queues.kernel.sched.SchedCore;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * One thread's io-wq worker, a task of the CPU it runs on ({@link Task}): a CPU with no submitter,
 * or, when the machine has none left, its thread's, where it takes its turns on the run queue with
 * the thread. Its path is {@link IoWorker}'s ({@code struct io_worker}, fs/io-wq.c 5.16); this
 * makes each call where that path leaves io-wq ({@link WorkerCall}) a message and brings its answer
 * back: the bio set, the block device of the request's file, its ring's {@code uring_lock} on its
 * thread's CPU, and, on its thread's CPU of an IOPOLL ring, its {@code -EAGAIN} loop in closed form
 * ({@link WorkerSpin}), which the queue ends with a freed tag and the CPU with the tick that ends
 * its slice.
 *
 * <p>Its schedule is the CPU's ({@link SchedCore}): it is woken for work ({@code
 * io_wqe_activate_free_worker}) or for a tag, switched in where the run queue picks it, and sleeps
 * when it has no work; the interrupts of what it issues are its CPU's, on the CPU's interrupt path.
 */
public final class IoWqWorker extends Task implements SchedCore.KernelThread<SimMessage, Outbox> {
  private final String name;
  private final int thread;
  private final ThisCpu cpu;
  private final SimRef<BioSetActor.Reply> biosetReplies;
  private final SimRef<BlockDevice.Reply> blockReplies;
  private final CpuConfig cfg;
  private final Charger charger;
  private final IoWorker worker;

  /** Its thread's CPU, whose ring it issues for. */
  private final SimRef<Cpu.Command> owner;

  /** Where the request's bio went: where a try after a tag sleep goes, and what a spin waits on. */
  private SimRef<BlockDevice.Command> lastTo;

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
    super(slot);
    this.name = name;
    this.thread = thread;
    this.cpu = cpu;
    this.biosetReplies = cpu.self.adapt(r -> new Cpu.FromBioSet(slot, r));
    this.blockReplies = cpu.self.adapt(r -> new Cpu.FromBlock(slot, r));
    this.cfg = cfg;
    this.charger = charger;
    this.owner = owner;
    this.worker =
        IoWorker.of(
            name,
            cpu.index,
            charger,
            cfg.iopoll(),
            cpu.costs.lineTransferPs(),
            shared,
            cfg.allocCache(),
            reschedTick);
  }

  /**
   * {@code io_queue_async_work}: requests of the thread's ring punted to the worker.
   *
   * @return whether this woke it from its sleep: its CPU runs it when the run queue picks it
   */
  boolean enqueue(List<IoKiocb> reqs) {
    return worker.enqueue(reqs);
  }

  /** Switched in after a wake-up for work at {@code t}. */
  @Override
  public void resume(long t, Outbox out) {
    call(worker.switchedIn(t), out);
  }

  /** The answer to the worker's call, at a step boundary of its CPU. */
  @Override
  public void handle(SimMessage m, Outbox out) {
    if (m instanceof BioSetActor.Put p) {
      call(worker.put(p.atPs()), out);
    } else if (m instanceof BioSetActor.Allocated a) {
      call(worker.bioAllocated(a.bios().get(0), a.atPs(), queuePolls()), out);
    } else if (m instanceof BlockDevice.Submitted q) {
      call(worker.submitted(q.ended(), q.wouldBlock(), q.atPs()), out);
    } else if (m instanceof BlockDevice.Slept s) {
      worker.slept(s.atPs());
    } else if (m instanceof BlockDevice.Woken w) {
      call(worker.woken(w.atPs()), out);
    } else if (m instanceof Cpu.UringUnlocked u) {
      call(worker.lockGranted(u.atPs()), out);
    } else if (m instanceof Cpu.Resched r) {
      call(worker.rescheduled(r.atPs()), out);
    } else {
      throw new InvariantBroken(name + ": not a reply to the io-wq worker: " + m);
    }
  }

  /** Makes the call where the worker's path left io-wq: a message, its spin, or its sleep. */
  private void call(WorkerCall call, Outbox out) {
    if (call instanceof WorkerCall.AllocBio a) {
      out.send(
          cpu.bioset,
          new BioSetActor.AllocBios(
              a.atPs(),
              cpu.index,
              CpuTime.SUBMIT,
              1,
              cfg.allocCache(),
              cfg.nrVecs(),
              KernelFn.BIO_ALLOC_KIOCB,
              biosetReplies));
    } else if (call instanceof WorkerCall.SubmitBio s) {
      lastTo = CpuCore.diskOf(s.req(), cfg).submitTo(cpu.index, s.polled());
      out.send(lastTo, new BlockDevice.SubmitBio(s.atPs(), call(), List.of(s.bio())));
    } else if (call instanceof WorkerCall.TagRetry r) {
      out.send(lastTo, new BlockDevice.TagRetry(r.atPs(), call(), List.of(r.bio())));
    } else if (call instanceof WorkerCall.PutBios p) {
      if (!p.completed().isEmpty()) {
        out.send(owner, new Cpu.CompletedElsewhere(p.atPs(), ForeignCompletions.of(p.completed())));
      }
      out.send(
          cpu.bioset,
          new BioSetActor.PutBios(p.atPs(), cpu.index, CpuTime.SUBMIT, p.bios(), biosetReplies));
    } else if (call instanceof WorkerCall.UringLock l) {
      out.send(owner, new Cpu.WantsUringLock(l.atPs(), l.req(), cpu.self, slot));
    } else if (call instanceof WorkerCall.Spin s) {
      startSpin(s.atPs(), out);
    }
    // WorkerCall.Sleep: the CPU sees it asleep, free from its time
  }

  /**
   * Its try at {@code t} found no tag on {@code lastTo}: it turns in its loop until the queue says
   * a tag was freed or the tick that ends its slice ({@link Cpu.SliceEnds}) comes.
   */
  private void startSpin(long t, Outbox out) {
    IoWorker.SpinStarted s = worker.startSpin(t);
    if (s.tagUntilPs() >= 0) {
      out.send(lastTo, new BlockDevice.SpinFor(t, call(), s.tagUntilPs(), s.id()));
    }
    if (s.sliceEndsPs() >= 0) {
      out.send(cpu.self, new Cpu.SliceEnds(s.sliceEndsPs(), s.id(), slot));
    }
  }

  /**
   * Whether the queue of the request's file polls ({@code QUEUE_FLAG_POLL}), which the bio's set-up
   * asks on an IOPOLL ring ({@code IoRw.blkdevDirectIoAsync}).
   */
  private boolean queuePolls() {
    return CpuCore.diskOf(worker.current(), cfg).pollsBlkMq();
  }

  private BlockDevice.Call call() {
    return new BlockDevice.Call(
        cpu.index, slot, CpuTime.SUBMIT, blockReplies, cpu.interrupts, cpu.irqBlockReplies);
  }

  /**
   * The spin {@code id} ends at the first turn that sees what came at {@code at} ({@link
   * IoWorker#spinEnds}).
   *
   * @return the {@code cond_resched} where it ends, or -1 if that spin is over already
   */
  long spinEnds(long id, long at, WorkerSpin.End why) {
    return worker.spinEnds(id, at, why);
  }

  /** Something its CPU takes came at {@code at}: spin {@code id} ends ({@link #spinEnds}). */
  @Override
  public long spinCut(long id, long at) {
    return spinEnds(id, at, WorkerSpin.End.CUT);
  }

  /** The tick at {@code at} asks it to reschedule: spin {@code id} ends ({@link #spinEnds}). */
  @Override
  public long spinSliceEnds(long id, long at) {
    return spinEnds(id, at, WorkerSpin.End.SLICE);
  }

  /** The spin under way, or -1: what a cut of it names. */
  @Override
  public long spinning() {
    return worker.spinning();
  }

  /**
   * Whether {@code m} finds the worker at its {@code cond_resched}: the bio that found no tag put
   * back, before it issues again, or the end of a spin. The CPU schedules there.
   */
  boolean condReschedAt(SimMessage m) {
    return m instanceof BioSetActor.Put && worker.atCondResched() || m instanceof Cpu.Resched;
  }

  /** At its {@code cond_resched}: ksoftirqd runs there. */
  @Override
  public boolean schedulesAt(SimMessage m) {
    return condReschedAt(m);
  }

  /** At its {@code cond_resched}, where the run queue may switch it. */
  @Override
  public boolean preemptibleAt(SimMessage m) {
    return condReschedAt(m);
  }

  /** A call of its is out, or it spins: the CPU is busy with it. */
  @Override
  public boolean inFlight() {
    return worker.inFlight();
  }

  /** Whether it waits for the ring's {@code uring_lock}: its CPU takes interrupts meanwhile. */
  @Override
  public boolean waitsInterruptibly() {
    return worker.waitsForLock();
  }

  /** The mutex's optimistic spin for the lock ({@link IoWorker#spinsOnRunningOwner}). */
  @Override
  public boolean spinsOnRunningOwner() {
    return worker.spinsOnRunningOwner();
  }

  /** A task woken at {@code t} preempts its spin for the lock: it sleeps on the mutex. */
  @Override
  public void lockSleeps(long t) {
    worker.lockSleeps(t);
  }

  /** An interrupt took {@code ps} of its CPU while it waited for the lock. */
  @Override
  public void interrupted(long ps) {
    worker.interrupted(ps);
  }

  /** Woken for work and not yet switched in. */
  @Override
  public boolean woken() {
    return worker.woken();
  }

  /** From when its CPU is free of it: switched out asleep, or, waiting for the lock, asked. */
  @Override
  public long freeAtPs() {
    return worker.freeAtPs();
  }

  @Override
  public String comm() {
    return "iou-wrk-" + thread;
  }

  /** The t/io_uring thread it works for. */
  public int thread() {
    return thread;
  }

  /** The CPU it runs on. */
  @Override
  public int cpu() {
    return cpu.index;
  }

  public IoWq wq() {
    return worker.wq();
  }

  /** Time spent spinning for the ring's uring_lock, in ps. */
  public long lockWaitPs() {
    return worker.lockWaitPs();
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
    return worker.spinSlices();
  }

  /** Spins that a freed tag ended. */
  public long spinsEndedByTag() {
    return worker.spinsEndedByTag();
  }

  /** The time of all its spins, in ps. */
  public long spunPs() {
    return worker.spunPs();
  }

  /** Times the worker slept on a tag wait queue. */
  public long tagSleeps() {
    return worker.tagSleeps();
  }

  public void audit(Books books) {
    worker.audit(books);
  }
}

package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoWq;
import blksim.queues.kernel.sched.CfsSlice;
import java.util.ArrayList;
import java.util.List;

/**
 * One thread's io-wq worker ({@code struct io_worker}, fs/io-wq.c), a task of the {@link Cpu} it
 * runs on: a CPU with no submitter, or its thread's ({@link HostCpu}). It issues the requests the
 * thread punted, one at a time. On an IOPOLL ring each bio is REQ_NOWAIT ({@code bio_set_polled}):
 * the worker retries it until it gets a tag, and puts each on the ring's IOPOLL list under the
 * ring's {@code uring_lock}, spinning while the thread holds it. Otherwise the issue blocks: with
 * no tag the worker sleeps on the queue's tag wait queue until a freed tag wakes it, and the
 * request's timer (null_blk irqmode=2) fires on this CPU ({@link WorkerIrq}).
 *
 * <p>The scheduler wakes an io-wq worker on an idle CPU of the node (5.16 binds workers to the
 * node, not to the submitter's CPU); blksim gives each thread that may need one a CPU of its own,
 * or, when the machine has none left, runs it on its submitter's CPU ({@link HostCpu}).
 */
public final class IoWqWorker {

  private final String name;
  private final int index;
  private final SimRef<Cpu.Command> self;
  private final SimRef<NullBlkActor.Interrupt> interrupts;
  private final WorkerIrq irq;
  private final SimRef<BioSetActor.Reply> biosetReplies;
  private final SimRef<BlockDevice.Reply> blockReplies;
  private final SimRef<BioSetActor.Command> bioset;
  private final CpuConfig cfg;
  private final Charger charger;
  private final IoWq wq = new IoWq();
  private final UringLockWait lock;
  private final WorkerSchedule sched;
  private final SimRef<NullBlkActor.Interrupt> irqTo;
  private final SimRef<BlockDevice.Reply> irqEndsTo;
  private SimRef<Cpu.Command> owner;
  private IoKiocb current;
  private SimRef<BlockDevice.Command> lastTo;

  /** The bio that ended in queue_rq goes back, then the request onto the IOPOLL list. */
  private boolean lockAfterPut;

  /** The bio that found no tag goes back, then the request is issued again. */
  private boolean retryAfterPut;

  /**
   * @param name the worker's name, as its books and its ledger give it
   * @param index the CPU's number
   * @param self the CPU it runs on, which hands it what comes for it ({@link Cpu#WORKER})
   * @param cfg the owner thread's files, mapped to the hardware queues of this CPU
   * @param shared whether the CPU is its submitter's, shared with the thread
   * @param slice the CFS slice on the submitter's CPU, which ends a shared worker's -EAGAIN loop
   */
  public IoWqWorker(
      String name,
      int index,
      SimRef<Cpu.Command> self,
      SimRef<BioSetActor.Command> bioset,
      CpuConfig cfg,
      PathCosts costs,
      boolean shared,
      CfsSlice slice) {
    this.name = name;
    this.index = index;
    this.self = self;
    this.biosetReplies = self.adapt(r -> new Cpu.FromBioSet(Cpu.WORKER, r));
    this.blockReplies = self.adapt(r -> new Cpu.FromBlock(Cpu.WORKER, r));
    this.bioset = bioset;
    this.cfg = cfg;
    this.charger = new Charger(costs, name);
    this.interrupts = self.adapt(Cpu.FromDevice::new);
    this.irq = new WorkerIrq(index, charger, bioset, biosetReplies, interrupts, cfg.iopoll());
    this.lock = new UringLockWait(index, charger, costs.lineTransferPs());
    HostCpu cpu = new HostCpu(shared ? self : null, name);
    WorkerSpin spin =
        shared && cfg.iopoll()
            ? new WorkerSpin(slice, charger, index, cpu, cfg.allocCache())
            : null;
    this.sched = new WorkerSchedule(name, index, charger, cpu, spin, irq, lock);
    // the interrupts of what it issues are its CPU's: on its thread's, the thread's interrupt path
    // takes them
    this.irqTo = interrupts;
    this.irqEndsTo = shared ? self.adapt(r -> new Cpu.FromBlock(0, r)) : blockReplies;
  }

  /** The ring's {@code uring_lock} is the worker's at the message's time: it adds its request. */
  void onUringUnlocked(Cpu.UringUnlocked m, Outbox out) {
    sched.chainReply(m.atPs(), t -> onUringUnlocked(t, out), out);
  }

  /** An interrupt of a driver for what this CPU queued (null_blk's timers). */
  void onInterrupt(NullBlkActor.Interrupt irq, Outbox out) {
    sched.interrupt(irq, out);
  }

  /** The submitter's CPU, which the worker shares, runs it from the message's time. */
  void onGranted(Cpu.WorkerGranted m, Outbox out) {
    sched.granted(m.atPs(), m.threadEnded(), out);
  }

  /** The tick that ends the worker's slice, in which it spins ({@link WorkerSpin}). */
  void onSliceEnds(Cpu.WorkerSliceEnds m, Outbox out) {
    spinEnds(m.spin(), m.atPs(), true, out);
  }

  /** A bioset's answer to the worker. */
  void onBioSetReply(BioSetActor.Reply m, Outbox out) {
    if (sched.inIrq()) {
      sched.irqReturned(irq.onBiosPut(m.atPs(), out), out);
    } else if (lockAfterPut) {
      lockAfterPut = false;
      sched.chainReply(m.atPs(), t -> askUringLock(t, out), out);
    } else if (retryAfterPut) {
      retryAfterPut = false;
      sched.chainReply(m.atPs(), t -> retry(t, out), out);
    } else if (m instanceof BioSetActor.Allocated a) {
      sched.chainReply(
          a.atPs(), t -> onBiosAllocated(new BioSetActor.Allocated(t, a.bios()), out), out);
    } else {
      sched.chainReply(m.atPs(), t -> issueNext(t, out), out);
    }
  }

  /** A block device's answer to the worker. */
  void onBlockReply(BlockDevice.Reply m, Outbox out) {
    if (m instanceof BlockDevice.IrqEnded e) {
      sched.irqReturned(irq.onIrqEnded(e, out), out);
    } else if (m instanceof BlockDevice.Slept s) {
      sched.sleptOnTag(s.atPs(), out);
    } else if (m instanceof BlockDevice.Woken w) {
      sched.wokenForTag(w.atPs(), t -> retryTag(t, out), out);
    } else if (m instanceof BlockDevice.TagFreed f) {
      spinEnds(f.spin(), f.atPs(), false, out);
    } else if (m instanceof BlockDevice.Submitted q) {
      sched.chainReply(
          q.atPs(),
          t ->
              onBiosQueued(new BlockDevice.Submitted(t, q.count(), q.ended(), q.wouldBlock()), out),
          out);
    } else {
      throw new InvariantBroken(name + ": the io-wq worker does not poll");
    }
  }

  /** Woken for a tag: the worker is switched in and blk_mq_get_tag tries again. */
  private void retryTag(long t, Outbox out) {
    sched.callsOut();
    out.send(lastTo, new BlockDevice.TagRetry(t, workerCall(), List.of(current.kiocbPrivate())));
  }

  private BlockDevice.Call workerCall() {
    return new BlockDevice.Call(index, Cpu.WORKER, CpuTime.SUBMIT, blockReplies, irqTo, irqEndsTo);
  }

  /** {@code io_queue_async_work}: requests of the owner's ring punted to the worker. */
  void onEnqueue(Cpu.IoWqEnqueue m, Outbox out) {
    owner = m.owner();
    irq.owner(owner);
    boolean woken = wq.enqueue(m.reqs());
    if (woken) {
      sched.wokenForWork(m.atPs(), t -> issueNext(t, out), out);
    }
  }

  /** io_worker_handle_work: issue the head request, or sleep when there is none. */
  private void issueNext(long t, Outbox out) {
    current = wq.next();
    if (current == null) {
      sched.sleep(t, out);
      return;
    }
    t += charger.charge(index, CpuTime.SUBMIT, CpuPaths.WORKER_ISSUE_PATH, 1);
    sched.callsOut();
    out.send(
        bioset,
        new BioSetActor.AllocBios(
            t,
            index,
            CpuTime.SUBMIT,
            1,
            cfg.allocCache(),
            cfg.nrVecs(),
            KernelFn.BIO_ALLOC_KIOCB,
            biosetReplies));
  }

  private void onBiosAllocated(BioSetActor.Allocated m, Outbox out) {
    Bio bio = m.bios().get(0);
    SimRef<BlockDevice.Command> to = CpuCore.setUpBio(bio, current, cfg, index, false);
    long t = m.atPs() + charger.charge(index, CpuTime.SUBMIT, CpuPaths.PAGES_PATH, 1);
    lastTo = to;
    sched.callsOut();
    out.send(to, new BlockDevice.SubmitBio(t, workerCall(), List.of(bio)));
  }

  private void onBiosQueued(BlockDevice.Submitted m, Outbox out) {
    if (!cfg.iopoll()) {
      wq.issued();
      if (m.ended().isEmpty()) {
        // in flight: its timer ends it on this CPU, and the submitter gets its CQE by task_work
        issueNext(m.atPs(), out);
        return;
      }
      // ended in queue_rq (irqmode 0 or 1): io_complete_rw queues the submitter's task_work here
      long t = m.atPs();
      List<Cpu.Completion> done = new ArrayList<>(m.ended().size());
      for (Bio bio : m.ended()) {
        t += charger.charge(index, CpuTime.SUBMIT, CpuPaths.IRQ_END_PATH, 1);
        done.add(completion(bio));
      }
      out.send(owner, new Cpu.CompletedElsewhere(t, done));
      putBios(t, m.ended(), out);
      return;
    }
    if (!m.ended().isEmpty()) {
      // a bio no longer polled (no poll queue) ended in queue_rq: io_complete_rw_iopoll marks the
      // request done, bio_put, then io_iopoll_req_issued lists it, where the next poll finds it
      long t = m.atPs() + charger.charge(index, CpuTime.SUBMIT, CpuPaths.END_IO_PATH, 1);
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
      long t = m.atPs() + charger.charge(index, CpuTime.SUBMIT, CpuPaths.WORKER_RETRY_PATH, 1);
      retryAfterPut = true;
      putBios(t, m.wouldBlock(), out);
      return;
    }
    askUringLock(m.atPs(), out);
  }

  private void putBios(long t, List<Bio> bios, Outbox out) {
    sched.callsOut();
    out.send(bioset, new BioSetActor.PutBios(t, index, CpuTime.SUBMIT, bios, biosetReplies));
  }

  /**
   * After cond_resched, the issue again. On the thread's CPU the loop turns until the tick ends the
   * worker's slice; the thread then has its own slice before the worker tries again.
   */
  private void retry(long t, Outbox out) {
    if (!sched.spins()) {
      issueNext(t, out);
    } else {
      sched.spin(t, lastTo, workerCall(), self, out);
    }
  }

  /**
   * Spin {@code id} sees at {@code at} a freed tag, and tries it; or the tick that ends its slice,
   * and gives the CPU back to the thread, which has its own slice before the worker tries again.
   */
  private void spinEnds(long id, long at, boolean bySlice, Outbox out) {
    sched.spinEnds(id, at, bySlice, t -> issueNext(t, out), out);
  }

  /** io_iopoll_req_issued with IO_URING_F_UNLOCKED: the ring's uring_lock, from the submitter. */
  private void askUringLock(long t, Outbox out) {
    lock.asked(t);
    sched.callsOut();
    out.send(owner, new Cpu.WantsUringLock(t, current, self));
  }

  private static Cpu.Completion completion(Bio bio) {
    return new Cpu.Completion((IoKiocb) bio.owner(), CpuCore.res(bio));
  }

  private void onUringUnlocked(long at, Outbox out) {
    long t = lock.granted(at);
    wq.issued();
    issueNext(t, out);
  }

  public int index() {
    return index;
  }

  public IoWq wq() {
    return wq;
  }

  /** When the worker last finished going to sleep: the end of its CPU's work, in ps. */
  public long freeAtPs() {
    return sched.freeAtPs();
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
    return sched.spinSlices();
  }

  /** Spins that ended on a tag another CPU freed. */
  public long spinsEndedByTag() {
    return sched.spinsEndedByTag();
  }

  /** The time of all its spins, in ps. */
  public long spunPs() {
    return sched.spunPs();
  }

  /** Times the worker slept on a tag wait queue. */
  public long tagSleeps() {
    return sched.tagSleeps();
  }

  public void audit(Books books) {
    wq.audit(books, name);
    books.drained(current == null, name + ": the io-wq worker was left with a request");
    sched.audit(books);
  }
}

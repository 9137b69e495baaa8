package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterArgs;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.EnterLoop.Phase;
import blksim.queues.io_uring.IoKiocb;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The submitter thread's path on its CPU: t/io_uring's loop in user space and io_uring_enter in the
 * kernel, one chain of calls at a time (see {@link Cpu}). It sleeps in {@code io_cqring_wait} when
 * a ring without IOPOLL waits for completions that interrupts will bring; an IOPOLL ring's thread
 * polls for them ({@link IopollCheck}).
 */
final class SubmitterPath implements ThreadLoop {
  private final CpuCore c;
  private final EnterLoop loop;
  private final List<IoKiocb> submitting = new ArrayList<>();
  private final ArrayDeque<SubmitGroup<IoKiocb>> groups = new ArrayDeque<>();
  private long exitedAtPs;
  private long freeAtPs;
  private final IoWqOwner iowq;
  private final IopollCheck iopoll;

  /** After the thread ended, the worker sharing its CPU added requests to poll. */
  private boolean teardownWaits;

  SubmitterPath(CpuCore c) {
    this.c = c;
    this.loop = new EnterLoop(c.self.name());
    this.iowq = new IoWqOwner(c);
    this.iopoll = new IopollCheck(c, this, iowq);
  }

  /** Handles a reply to the thread's chain of calls: the answer to the phase it is in. */
  @Override
  public void handle(SimMessage m, Outbox out) {
    if (m instanceof BioSetActor.Allocated b) {
      loop.answered(Phase.ALLOC_BIOS);
      onBiosAllocated(b, out);
    } else if (m instanceof BlockDevice.Submitted q) {
      loop.answered(Phase.SUBMIT_BIOS);
      onBiosQueued(q, out);
    } else if (m instanceof BlockDevice.Polled p) {
      loop.answered(Phase.POLL);
      iopoll.onPolled(p, out);
    } else if (m instanceof BioSetActor.Put p && loop.phase() == Phase.PUT_SUBMITTED) {
      loop.answered(Phase.PUT_SUBMITTED);
      nextGroup(p.atPs(), out);
    } else if (m instanceof BioSetActor.Put p) {
      loop.answered(Phase.PUT_POLLED);
      iopoll.afterPut(p.atPs(), out);
    } else if (m instanceof Cpu.Resume r) {
      loop.answered(Phase.RETURN);
      onResume(r.atPs(), out);
    } else if (m instanceof Cpu.Resched r) {
      loop.answered(Phase.RESCHED);
      iopoll.poll(loop.exiting() ? r.atPs() : iowq.relock(r.atPs(), out), out);
    } else {
      throw new IllegalStateException("not a reply to the thread: " + m);
    }
  }

  /** The head of a pass of t/io_uring's loop: prepare SQEs, then enter. */
  @Override
  public void pass(long t, Outbox out) {
    int toPrep = c.sub.toPrep();
    int prepped =
        toPrep > 0 ? c.sub.prepMoreIos(toPrep, t, c.costs.callPs(KernelFn.PREP_MORE_IOS_URING)) : 0;
    t += c.charge(CpuTime.SUBMIT, KernelFn.PREP_MORE_IOS_URING, prepped);
    c.sub.beginPass(prepped);
    enter(t, out);
  }

  /** io_uring_enter: the syscall, then io_submit_sqes up to the bio allocation. */
  private void enter(long t, Outbox out) {
    EnterArgs args = c.sub.enterArgs();
    loop.enter(args);
    t = iowq.lock(t);
    t += c.charge(CpuTime.SUBMIT, CpuPaths.ENTER_PATH, 1);
    for (int i = 0; i < args.toSubmit(); i++) {
      IoKiocb req = c.ring.submitSqe();
      if (req == null) {
        break;
      }
      submitting.add(req);
    }
    if (c.cfg.nop()) {
      nops(t, out);
      return;
    }
    int n = submitting.size();
    if (n > 0 && c.cfg.iopoll() && !c.cfg.oDirect()) {
      t += c.failWithoutDirect(submitting);
      loop.submitted(n);
      submitting.clear();
      n = 0;
    }
    if (n == 0) {
      afterSubmit(t, out);
      return;
    }
    t += c.charge(CpuTime.SUBMIT, CpuPaths.SUBMIT_PATH, n);
    send(
        Phase.ALLOC_BIOS,
        c.bioset,
        new BioSetActor.AllocBios(
            t,
            c.index,
            CpuTime.SUBMIT,
            n,
            c.cfg.allocCache(),
            c.cfg.nrVecs(),
            KernelFn.BIO_ALLOC_KIOCB,
            c.biosetReplies),
        out);
  }

  /** io_submit_sqes of nops: each completes at issue; io_submit_state_end's flush posts CQEs. */
  private void nops(long t, Outbox out) {
    t += c.nops(submitting);
    loop.submitted(submitting.size());
    submitting.clear();
    afterSubmit(t, out);
  }

  /**
   * __blkdev_direct_IO_async with its bio: set each up, then submit them, one hardware queue after
   * another when the batch spans several devices (each in the order it first appears).
   */
  private void onBiosAllocated(BioSetActor.Allocated m, Outbox out) {
    List<Bio> bios = m.bios();
    groups.addAll(SubmitGroup.of(bios, submitting, c));
    loop.submitted(submitting.size());
    submitting.clear();
    nextGroup(m.atPs() + c.charge(CpuTime.SUBMIT, CpuPaths.PAGES_PATH, bios.size()), out);
  }

  /** Submits the next group of the batch, or goes on after io_submit_sqes. */
  private void nextGroup(long t, Outbox out) {
    SubmitGroup<IoKiocb> g = groups.peekFirst();
    if (g == null) {
      afterSubmit(t, out);
      return;
    }
    send(
        Phase.SUBMIT_BIOS,
        g.to(),
        new BlockDevice.SubmitBio(t, c.call(CpuTime.SUBMIT), g.bios(), g.plugNrIos()),
        out);
  }

  private void onBiosQueued(BlockDevice.Submitted m, Outbox out) {
    SubmitGroup<IoKiocb> g = groups.pollFirst();
    List<IoKiocb> punted = IoWqOwner.foundNoTag(g.reqs(), m.wouldBlock());
    for (IoKiocb req : g.reqs()) {
      if (c.cfg.iopoll() && !punted.contains(req)) {
        c.ring.iopollReqIssued(req);
      }
    }
    long t = punted.isEmpty() ? m.atPs() : iowq.punt(m.atPs(), punted, out);
    // Completed inline: io_complete_rw queues each completion as task_work (an IOPOLL ring's bio
    // ends here only when not polled: a DM requeue, a queue without poll support), then bio_put.
    t = c.endSubmitted(m.ended(), t, iowq::workerDone, out);
    List<Bio> put = m.ended();
    if (!m.wouldBlock().isEmpty()) {
      put = new ArrayList<>(m.ended());
      put.addAll(m.wouldBlock());
    }
    if (put.isEmpty()) {
      nextGroup(t, out);
      return;
    }
    send(
        Phase.PUT_SUBMITTED,
        c.bioset,
        new BioSetActor.PutBios(t, c.index, CpuTime.SUBMIT, put, c.biosetReplies),
        out);
  }

  /** A request has ended: the io-wq worker has it no more, if it had (a ring without IOPOLL). */
  void workerCompleted(IoKiocb req) {
    iowq.workerDone(req);
  }

  /**
   * The io-wq worker wants the ring's uring_lock; after the thread ended, the teardown polls what
   * it adds: when the CPU is free, or once the worker that shares it ({@code lent}) gives it back.
   *
   * @return when the ring's teardown would poll it now, or -1
   */
  long onWantsUringLock(Cpu.WantsUringLock m, boolean lent, Outbox out) {
    long t = iowq.wants(m, out);
    teardownWaits |= t >= 0 && loop.exiting() && lent;
    return t >= 0 && loop.exiting() && !inFlight() && !lent ? Math.max(t, freeAtPs) : -1;
  }

  /** The ring's teardown polls what the worker added after the thread ended. */
  void teardownPoll(long t, Outbox out) {
    iopoll.poll(t, out);
  }

  /** The CPU the worker shared is the thread's again at {@code t}: a waiting teardown polls. */
  void cpuBack(long t, Outbox out) {
    if (teardownWaits && !inFlight() && !c.ring.iopollListEmpty()) {
      iopoll.poll(Math.max(t, freeAtPs), out);
    }
    teardownWaits = false;
  }

  /**
   * After io_submit_sqes. IOPOLL: io_iopoll_check if the caller asked for events. Otherwise
   * io_cqring_wait: run the task_work that completions queued, posting their CQEs, and sleep until
   * there are {@code min_complete}.
   */
  private void afterSubmit(long t, Outbox out) {
    switch (loop.afterSubmit(c.cfg.iopoll(), c.ring)) {
      case IOPOLL_CHECK -> iopoll.check(t, out);
      case RETURN -> leave(t, out);
      case CQRING_WAIT -> cqringWait(t, out);
    }
  }

  /** io_cqring_wait's loop: run task_work, then return or sleep. */
  private void cqringWait(long t, Outbox out) {
    t += c.runTaskWork();
    switch (loop.cqringWait(c.ring)) {
      case RETURN -> leave(t, out);
      case HANG -> {
        // The real tool hangs here until it is killed; the model stops the thread and says so.
        EnterArgs args = loop.args();
        c.sub.hangInCqringWait(args.toWait(), c.ring.cqEvents(), loop.ret());
        exitThread(t + c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1), out);
      }
      case SLEEP -> {
        t += c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
        sleep(t, Phase.SLEEP);
      }
    }
  }

  /** The woken thread is switched back in when the interrupt is over, and waits on. */
  @Override
  public void wake(long t, Outbox out) {
    loop.switchedIn();
    cqringWait(t + c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1), out);
  }

  /** io_uring_enter returns at {@code t}, dropping the uring_lock. */
  void leave(long t, Outbox out) {
    iowq.unlock(t, out);
    send(Phase.RETURN, c.self, new Cpu.Resume(t, c.slot), out);
  }

  /** Back in user space: reap, then t/io_uring's rules. */
  private void onResume(long t, Outbox out) {
    // exit_to_user_mode_loop: the task_work a completion queued (TWA_SIGNAL) runs before user space
    t += c.runTaskWork();
    int thisReap =
        c.sub.reap(
            t,
            c.costs.callPs(KernelFn.REAP_EVENTS_URING),
            ps -> c.latencyNs.recordValue(ps / 1000));
    t += c.charge(CpuTime.SUBMIT, KernelFn.REAP_EVENTS_URING, Math.max(thisReap, 0));
    if (c.costs.step(KernelFn.FIO_USER).ps() > 0) {
      // A profile whose load is fio: its engine's own work per I/O, beyond t/io_uring's loop.
      t += c.charge(CpuTime.SUBMIT, KernelFn.FIO_USER, Math.max(thisReap, 0));
    }
    switch (c.sub.entered(loop.ret(), thisReap)) {
      case ENTER -> enter(t, out);
      case PASS -> pass(t, out);
      case EXIT -> exitThread(t, out);
    }
  }

  /** The thread ends; requests still in flight are reaped by the ring's teardown. */
  void exitThread(long t, Outbox out) {
    loop.exit();
    exitedAtPs = t;
    freeAtPs = t;
    c.threadExited(t, out);
    if (!c.ring.iopollListEmpty()) {
      iopoll.poll(t, out);
    }
  }

  /** A call of the thread's: the loop is in phase {@code call} until its answer comes. */
  <M extends SimMessage> void send(Phase call, SimRef<M> to, M message, Outbox out) {
    loop.to(call);
    out.send(to, message);
  }

  /** The ring's books against t/io_uring's counts. */
  @Override
  public void audit(Books books, String name) {
    c.ring.audit(books, name);
    c.ring.auditAgainst(c.sub.done() + c.sub.acceptedInHungCall(), c.sub.reaps(), books, name);
  }

  /**
   * The thread goes to sleep at {@code t} ({@code how}: io_cqring_wait's and the like, or a tag's),
   * its CPU idle until it is woken.
   */
  void sleep(long t, Phase how) {
    loop.to(how);
    freeAtPs = t;
  }

  /** The ring's teardown has nothing left to poll at {@code t}: the CPU is free of the thread. */
  void teardownIdle(long t) {
    freeAtPs = t;
    loop.teardownIdle();
  }

  /** The thread's loop state, which its preadv2 or libaio loop drives instead. */
  EnterLoop loop() {
    return loop;
  }

  /** A call of the thread's is out: the CPU is busy with it until the reply comes back. */
  boolean inFlight() {
    return loop.phase().callOut();
  }

  /** From when the CPU is free of the thread's work (asleep, or ended). */
  long freeAtPs() {
    return freeAtPs;
  }

  boolean exiting() {
    return loop.exiting();
  }

  long exitedAtPs() {
    return exitedAtPs;
  }

  /** The thread ended and no request of its ring is left in the kernel. */
  boolean done() {
    return loop.exiting()
        && !inFlight()
        && c.ring.iopollListEmpty()
        && c.ring.awaitingCompletion() == 0;
  }
}

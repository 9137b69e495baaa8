package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.PlugBatch;
import blksim.queues.block.blk_mq.Poll;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterArgs;
import blksim.queues.io_uring.EnterCall;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.EnterLoop.Phase;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoUringEnter;
import blksim.queues.io_uring.IoWqOwner;
import blksim.queues.io_uring.Iopoll;
import blksim.queues.tiouring.LatencyRecorder;
import blksim.queues.tiouring.Submitter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The submitter thread's path on its CPU: t/io_uring's loop in user space ({@link Submitter}) and
 * io_uring_enter in the kernel ({@link IoUringEnter}, {@link Iopoll}), one chain of calls at a time
 * (see {@link Cpu}). The models charge what the kernel runs and say where the path leaves io_uring
 * ({@link EnterCall}); this turns each such call into its message and brings the answer back. It
 * keeps what is the CPU's: the thread's side of its io-wq and of the ring's {@code uring_lock}
 * ({@link IoWqOwner}), the completions of other tasks' and CPUs' rings, when the CPU is free of the
 * thread, and the batch's bios by the device each goes to ({@link PlugBatch}).
 */
final class SubmitterPath implements ThreadLoop {
  private final CpuCore c;
  private final EnterLoop loop;
  private final IoUringEnter enter;
  private final Iopoll iopoll;
  private final ArrayDeque<PlugBatch<SimRef<BlockDevice.Command>, IoKiocb>> groups =
      new ArrayDeque<>();
  private final BiFunction<Bio, IoKiocb, SimRef<BlockDevice.Command>> submitTo;
  private final LatencyRecorder latency;
  private final Consumer<IoKiocb> workerDone;

  private long exitedAtPs;
  private long freeAtPs;
  private final IoWqOwner<Cpu.WantsUringLock> iowq;

  SubmitterPath(CpuCore c) {
    this.c = c;
    this.loop = new EnterLoop(c.self.name());
    this.enter =
        new IoUringEnter(
            c.charger,
            c.index,
            c.ring,
            loop,
            c,
            new IoUringEnter.Setup(c.cfg.iopoll(), c.cfg.oDirect(), c.cfg.nop()));
    this.iopoll = enter.iopoll();
    this.iowq = new IoWqOwner<>(c.charger, c.index, c.ring, c.costs, Cpu.WantsUringLock::req);
    this.submitTo = (bio, req) -> CpuCore.submitTo(bio, req, c.cfg, c.index);
    this.latency = ps -> c.latencyNs.recordValue(ps / 1000);
    this.workerDone = iowq::workerDone;
  }

  /** Handles a reply to the thread's chain of calls: the answer to the phase it is in. */
  @Override
  public void handle(SimMessage m, Outbox out) {
    if (m instanceof BioSetActor.Allocated b) {
      call(enter.bioAllocated(b.bios(), b.atPs()), out);
    } else if (m instanceof BlockDevice.Submitted q) {
      loop.answered(Phase.SUBMIT_BIOS);
      onBiosQueued(q, out);
    } else if (m instanceof BlockDevice.Polled p) {
      call(iopoll.bioPolled(p.ended(), p.atPs()), out);
    } else if (m instanceof BioSetActor.Put p && loop.phase() == Phase.PUT_SUBMITTED) {
      loop.answered(Phase.PUT_SUBMITTED);
      nextGroup(p.atPs(), out);
    } else if (m instanceof BioSetActor.Put p) {
      call(iopoll.biosPut(p.atPs()), out);
    } else if (m instanceof Cpu.Resume r) {
      onResume(enter.exitToUserMode(r.atPs()), out);
    } else if (m instanceof Cpu.Resched r) {
      call(iopoll.rescheduled(r.atPs()), out);
    } else {
      throw new IllegalStateException("not a reply to the thread: " + m);
    }
  }

  /** The head of a pass of t/io_uring's loop: prepare SQEs, then enter. */
  @Override
  public void pass(long t, Outbox out) {
    enter(c.sub.prepMoreIosUring(t, c.charger, c.index), out);
  }

  /** io_uring_enter, once it has the ring's uring_lock. */
  private void enter(long t, Outbox out) {
    EnterArgs args = c.sub.enterArgs();
    call(enter.ioUringEnter(args, iowq.lock(t)), out);
  }

  /**
   * Makes the call where io_uring's path left off ({@link EnterCall}): a message, whose answer
   * {@link #handle} brings back to the model; or the CPU's own part of it.
   */
  private void call(EnterCall call, Outbox out) {
    if (call instanceof EnterCall.AllocBios a) {
      out.send(
          c.bioset,
          new BioSetActor.AllocBios(
              a.atPs(),
              c.index,
              CpuTime.SUBMIT,
              a.nr(),
              c.cfg.allocCache(),
              c.cfg.nrVecs(),
              KernelFn.BIO_ALLOC_KIOCB,
              c.biosetReplies));
    } else if (call instanceof EnterCall.SubmitBios s) {
      groups.addAll(PlugBatch.byQueue(s.bios(), s.reqs(), s.plugNrIos(), submitTo));
      nextGroup(s.atPs(), out);
    } else if (call instanceof EnterCall.PollBio p) {
      pollBio(p, out);
    } else if (call instanceof EnterCall.PutBios p) {
      c.cpu.send(p.elsewhere(), out);
      out.send(
          c.bioset,
          new BioSetActor.PutBios(p.atPs(), c.index, CpuTime.POLL, p.bios(), c.biosetReplies));
    } else if (call instanceof EnterCall.UringLock l) {
      List<Cpu.WantsUringLock> granted = new ArrayList<>();
      long t = iowq.relock(l.atPs(), granted);
      unlocked(granted, l.atPs(), out);
      call(iopoll.ioDoIopoll(t), out);
    } else if (call instanceof EnterCall.Resched r) {
      out.send(c.self, new Cpu.Resched(r.atPs(), c.slot));
    } else if (call instanceof EnterCall.Return r) {
      unlocked(iowq.unlock(r.atPs()), r.atPs(), out);
      out.send(c.self, new Cpu.Resume(r.atPs(), c.slot));
    } else if (call instanceof EnterCall.Sleep s) {
      freeAtPs = s.atPs();
    } else if (call instanceof EnterCall.Hang h) {
      // The real tool hangs here until it is killed; the model stops the thread and says so.
      c.sub.hangInCqringWait(h.minComplete(), h.posted(), h.accepted());
      exitThread(h.atPs(), out);
    } else if (call instanceof EnterCall.TeardownIdle i) {
      freeAtPs = i.atPs();
    }
  }

  /**
   * bio_poll of the head's bio: its hardware queue's blk_mq_poll, or the bio-based disk's; where
   * the poll reaches neither ({@link Poll#bioPollReaches}) the answer comes at once, nothing ended,
   * by a message of its own (a step of the CPU, as a poll's answer is).
   */
  private void pollBio(EnterCall.PollBio p, Outbox out) {
    blksim.actors.block.Disk disk = CpuCore.diskOf(p.req(), c.cfg);
    if (!Poll.bioPollReaches(p.bio(), disk.isBioBased())) {
      out.send(c.blockReplies, new BlockDevice.Polled(p.atPs(), List.of()));
      return;
    }
    out.send(
        disk.pollTo(p.bio().cookie()),
        new BlockDevice.PollBio(p.atPs(), c.call(CpuTime.POLL), p.bio()));
  }

  /** Submits the next group of the batch, or goes on after io_submit_sqes. */
  private void nextGroup(long t, Outbox out) {
    PlugBatch<SimRef<BlockDevice.Command>, IoKiocb> g = groups.peekFirst();
    if (g == null) {
      call(enter.ioSubmitSqesReturned(t), out);
      return;
    }
    send(
        Phase.SUBMIT_BIOS,
        g.to(),
        new BlockDevice.SubmitBio(t, c.call(CpuTime.SUBMIT), g.bios(), g.plugNrIos()),
        out);
  }

  /**
   * submit_bio of one group returned: io_iopoll_req_issued of what was issued, io-wq for what found
   * no tag, bi_end_io of what ended at once, then bio_put of those.
   */
  private void onBiosQueued(BlockDevice.Submitted m, Outbox out) {
    PlugBatch<SimRef<BlockDevice.Command>, IoKiocb> g = groups.pollFirst();
    IoUringEnter.GroupReturned r =
        enter.submitBioReturned(g.reqs(), m.ended(), m.wouldBlock(), m.atPs(), iowq);
    if (!r.punted().isEmpty()) {
      punted(r.puntedAtPs(), r.punted(), out);
    }
    c.cpu.send(r.elsewhere(), out);
    long t = r.atPs();
    List<Bio> put = r.put();
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

  /**
   * io_queue_async_work of {@code reqs}, done at {@code t} ({@link IoWqOwner#punt}): to the worker.
   */
  private void punted(long t, List<IoKiocb> reqs, Outbox out) {
    if (c.worker == null) {
      throw new InvariantBroken(
          c.self.name() + ": a bio found no tag and there is no io-wq worker");
    }
    out.send(c.worker, new Cpu.IoWqEnqueue(t, List.copyOf(reqs), c.self, c.owner));
  }

  /** Each worker that got the ring's uring_lock at {@code t} is told. */
  private static void unlocked(List<Cpu.WantsUringLock> granted, long t, Outbox out) {
    for (Cpu.WantsUringLock m : granted) {
      out.send(m.worker(), new Cpu.UringUnlocked(t, m.slot()));
    }
  }

  /** Another CPU ended {@code req} of this ring ({@link IoUringEnter#completedElsewhere}). */
  void completedElsewhere(IoKiocb req, int res) {
    enter.completedElsewhere(req, res, workerDone);
  }

  /**
   * What other CPUs' completions queued reaches the thread ({@link
   * IoUringEnter#taskWorkQueuedElsewhere}).
   *
   * @return whether it is to be woken
   */
  boolean taskWorkQueuedElsewhere() {
    return enter.taskWorkQueuedElsewhere();
  }

  /** A request has ended: the io-wq worker has it no more, if it had (a ring without IOPOLL). */
  void workerCompleted(IoKiocb req) {
    iowq.workerDone(req);
  }

  /**
   * The io-wq worker wants the ring's uring_lock; after the thread ended, the teardown polls what
   * it adds, once the CPU is the teardown's.
   *
   * @return when the ring's teardown would poll it now, or -1
   */
  long onWantsUringLock(Cpu.WantsUringLock m, Outbox out) {
    long t = iowq.wants(m, m.atPs());
    if (t >= 0) {
      out.send(m.worker(), new Cpu.UringUnlocked(t, m.slot()));
    }
    return enter.teardownPollsAt(t, freeAtPs);
  }

  /** The ring's teardown polls what the worker added after the thread ended. */
  void teardownPoll(long t, Outbox out) {
    call(iopoll.ioDoIopoll(t), out);
  }

  /**
   * Whether the thread, at its return to user space, goes round t/io_uring's loop with nothing to
   * do until its io-wq worker, which shares its CPU, runs ({@link IoUringEnter#waitsForItsWorker}).
   */
  boolean waitsForItsWorkerHere() {
    return enter.waitsForItsWorker(
        c.worker == c.self,
        c.sub.entersAgainEmpty(loop.ret(), c.ring.cqEvents()),
        iowq,
        c.sub.inflight());
  }

  /**
   * The empty turns of {@link #waitsForItsWorkerHere} from {@code t}, in closed form, until one
   * ends at or after {@code untilPs} ({@link IoUringEnter#emptyEnters}), and the reap of nothing.
   *
   * @return when the last returns to user space, where the thread's loop goes on as a step
   */
  long emptyEnters(long t, long untilPs) {
    IoUringEnter.EmptyEnters done = enter.emptyEnters(t, untilPs, iowq);
    c.sub.enteredEmpty(done.calls());
    return done.endPs();
  }

  /** The woken thread is switched back in when the interrupt is over, and waits on. */
  @Override
  public void wake(long t, Outbox out) {
    call(enter.scheduled(t), out);
  }

  /** Back in user space at {@code t}, the task_work run: reap, then t/io_uring's rules. */
  private void onResume(long t, Outbox out) {
    t = c.sub.reapEventsUring(t, c.charger, c.index, latency);
    switch (c.sub.entered(loop.ret())) {
      case ENTER -> enter(t, out);
      case PASS -> pass(t, out);
      case EXIT -> exitThread(t, out);
    }
  }

  /** The thread ends; requests still in flight are reaped by the ring's teardown. */
  void exitThread(long t, Outbox out) {
    exitedAtPs = t;
    freeAtPs = t;
    EnterCall teardown = enter.exit(t);
    c.threadExited(t, out);
    call(teardown, out);
  }

  /**
   * An interrupt of its CPU ended requests of the ring: after the thread ended, the task_work they
   * queued is the teardown's ({@link IoUringEnter#taskWorkToTeardown}).
   */
  void irqEnded() {
    enter.taskWorkToTeardown();
  }

  /** A call of the thread's: the loop is in phase {@code call} until its answer comes. */
  private <M extends SimMessage> void send(Phase call, SimRef<M> to, M message, Outbox out) {
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

package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.PlugBatch;
import blksim.queues.books.Books;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.fs.aio.AioCall;
import blksim.queues.fs.aio.AioKiocb;
import blksim.queues.fs.aio.IoEvent;
import blksim.queues.fs.aio.IoSubmit;
import blksim.queues.fs.aio.KioCtx;
import blksim.queues.fs.aio.ReadEvents;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.EnterLoop.Phase;
import blksim.queues.tiouring.Submitter;
import java.util.ArrayDeque;
import java.util.List;

/**
 * {@code t/io_uring -a1}'s thread on its CPU ({@code submitter_aio_fn}): {@code io_submit} of a
 * batch of iocbs, then {@code io_getevents} until it has {@code to_wait} events. The kernel's part
 * is fs/aio.c's ({@link IoSubmit}, {@link ReadEvents}); this turns each place its path leaves
 * fs/aio.c ({@link AioCall}) into its message and brings the answer back, and keeps what is the
 * CPU's: the batch's bios by the hardware queue each goes to ({@link PlugBatch}), and a bio that
 * finds no tag (more requests at once than the queue has tags, with irqmode 2), which sleeps in
 * {@code blk_mq_get_tag} until a freed tag wakes it, and {@code io_submit} goes on.
 */
final class AioPath implements ThreadLoop {
  /** What the thread does when a syscall returns to user space. */
  private enum Returned {
    FROM_IO_SUBMIT,
    FROM_IO_GETEVENTS
  }

  private final CpuCore c;
  private final EnterLoop loop;
  private final SubmitterPath thread;
  private final KioCtx ctx;
  private final IoSubmit submit;
  private final ReadEvents getEvents;
  private final ArrayDeque<PlugBatch<SimRef<BlockDevice.Command>, AioKiocb>> groups =
      new ArrayDeque<>();
  private List<IoEvent> events = List.of();
  private Returned returned;

  /**
   * What io_submit has still to submit while it sleeps for a tag, the bio that found none first.
   */
  private List<Bio> waitingForTag = List.of();

  AioPath(CpuCore c, SubmitterPath thread) {
    this.c = c;
    this.loop = thread.loop();
    this.thread = thread;
    this.ctx = c.aio;
    this.submit = new IoSubmit(c.charger, c.index, ctx, c.self.name());
    this.getEvents = new ReadEvents(c.charger, c.index, ctx);
  }

  /** The loop's head: prep iocbs if none are left over, then io_submit. */
  @Override
  public void pass(long t, Outbox out) {
    Submitter.AioPass pass = c.sub.prepMoreIosAio(t, c.charger, c.index);
    call(submit.ioSubmit(pass.iocbs(), pass.atPs()), out);
  }

  /** A reply to the thread's call. */
  @Override
  public void handle(SimMessage m, Outbox out) {
    if (m instanceof BioSetActor.Allocated a) {
      loop.answered(Phase.ALLOC_BIOS);
      call(submit.bioAllocated(a.bios(), a.atPs()), out);
    } else if (m instanceof BlockDevice.Submitted q) {
      loop.answered(Phase.SUBMIT_BIOS);
      queued(q, out);
    } else if (m instanceof BlockDevice.Slept s) {
      // blk_mq_get_tag: asleep on the tag wait queue, the plug's requests flushed; the CPU idles
      loop.answered(Phase.SUBMIT_BIOS);
      waitingForTag = s.bios();
      thread.sleep(s.atPs(), Phase.TAG_SLEEP);
    } else if (m instanceof BlockDevice.Woken w) {
      loop.answered(Phase.TAG_SLEEP);
      List<Bio> bios = waitingForTag;
      waitingForTag = List.of();
      send(
          Phase.SUBMIT_BIOS,
          groups.peekFirst().to(),
          new BlockDevice.TagRetry(w.atPs(), c.call(CpuTime.SUBMIT), bios),
          out);
    } else if (m instanceof BioSetActor.Put p) {
      loop.answered(Phase.PUT_SUBMITTED);
      nextGroup(p.atPs(), out);
    } else if (m instanceof Cpu.Resume r) {
      loop.answered(Phase.RETURN);
      back(r.atPs(), out);
    } else {
      throw new IllegalStateException("not a reply to libaio: " + m);
    }
  }

  /**
   * Makes the call where the syscall's path left fs/aio.c ({@link AioCall}): a message, the task's
   * sleep, or the end of a thread that would sleep for good.
   */
  private void call(AioCall call, Outbox out) {
    if (call instanceof AioCall.AllocBios a) {
      send(
          Phase.ALLOC_BIOS,
          c.bioset,
          new BioSetActor.AllocBios(
              a.atPs(),
              c.index,
              CpuTime.SUBMIT,
              a.nr(),
              a.allocCache(),
              c.cfg.nrVecs(),
              KernelFn.BIO_ALLOC_KIOCB,
              c.biosetReplies),
          out);
    } else if (call instanceof AioCall.SubmitBios s) {
      groups.addAll(PlugBatch.byQueue(s.bios(), s.reqs(), s.plugNrIos(), this::submitTo));
      nextGroup(s.atPs(), out);
    } else if (call instanceof AioCall.Return r) {
      returned = Returned.FROM_IO_SUBMIT;
      send(Phase.RETURN, c.self, new Cpu.Resume(r.atPs(), c.slot), out);
    } else if (call instanceof AioCall.Events e) {
      events = e.events();
      returned = Returned.FROM_IO_GETEVENTS;
      send(Phase.RETURN, c.self, new Cpu.Resume(e.atPs(), c.slot), out);
    } else if (call instanceof AioCall.Sleep s) {
      thread.sleep(s.atPs(), Phase.SLEEP);
    } else if (call instanceof AioCall.Hang h) {
      c.sub.hangIn(
          "hangs in io_getevents: min_nr="
              + h.minNr()
              + " with "
              + h.available()
              + " events in the ring and no more to come; t/io_uring would sleep here until killed");
      thread.exitThread(h.atPs(), out);
    }
  }

  /**
   * Where submit_bio on this CPU sends {@code bio}, set up: its file's disk's queue, not polled.
   */
  private SimRef<BlockDevice.Command> submitTo(Bio bio, AioKiocb req) {
    return c.cfg.disk((int) req.iocb().userData()).submitTo(c.index, bio.polled());
  }

  private void nextGroup(long t, Outbox out) {
    PlugBatch<SimRef<BlockDevice.Command>, AioKiocb> g = groups.peekFirst();
    if (g == null) {
      call(submit.ioSubmitReturned(t), out);
      return;
    }
    send(
        Phase.SUBMIT_BIOS,
        g.to(),
        new BlockDevice.SubmitBio(t, c.call(CpuTime.SUBMIT), g.bios(), g.plugNrIos()),
        out);
  }

  /** submit_bio of one group returned: what ended in queue_rq has its event, then bio_put. */
  private void queued(BlockDevice.Submitted q, Outbox out) {
    groups.pollFirst();
    long t = submit.submitBioReturned(q.ended(), q.wouldBlock(), q.atPs());
    if (q.ended().isEmpty()) {
      nextGroup(t, out);
      return;
    }
    send(
        Phase.PUT_SUBMITTED,
        c.bioset,
        new BioSetActor.PutBios(t, c.index, CpuTime.SUBMIT, q.ended(), c.biosetReplies),
        out);
  }

  /** In user space after a syscall: reap what io_getevents gave, then wait for more or loop. */
  private void back(long t, Outbox out) {
    if (returned == Returned.FROM_IO_SUBMIT) {
      c.sub.aioCall(true);
    } else {
      long after =
          c.sub.reapEventsAio(
              events, t, c.charger, c.index, ps -> c.latencyNs.recordValue(ps / 1000));
      if (after < 0) {
        thread.exitThread(t, out);
        return;
      }
      t = after;
    }
    switch (c.sub.aioReturned()) {
      case ENTER -> call(getEvents.ioGetevents(c.sub.aioToWait(), t), out); // min_nr = nr = to_wait
      case EXIT -> thread.exitThread(t, out);
      case PASS -> pass(t, out);
    }
  }

  private <M extends SimMessage> void send(Phase call, SimRef<M> to, M message, Outbox out) {
    loop.to(call);
    out.send(to, message);
  }

  /** An interrupt's aio_complete woke the task in io_getevents: it looks at the ring again. */
  @Override
  public void wake(long t, Outbox out) {
    loop.switchedIn();
    call(getEvents.scheduled(t), out);
  }

  @Override
  public void audit(Books books, String name) {
    ctx.audit(books, name);
    books.drainedEqual(ctx.read(), c.sub.reaps(), name + ": aio events read vs t/io_uring's reaps");
  }
}

package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.fs.aio.AioKiocb;
import blksim.queues.fs.aio.IoEvent;
import blksim.queues.fs.aio.KioCtx;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.EnterLoop.Phase;
import blksim.queues.io_uring.Sqe;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code t/io_uring -a1}'s thread on its CPU ({@code submitter_aio_fn}): {@code io_submit} of a
 * batch of iocbs, then {@code io_getevents} until it has {@code to_wait} events (fs/aio.c 5.16).
 * Each iocb takes an {@code aio_kiocb} and a bio from the mempool (aio sets no {@code
 * IOCB_ALLOC_CACHE}), under a plug of more than 2 (no {@code nr_ios}); with irqmode 0 or 1 the
 * request ends in {@code queue_rq} as the plug is flushed, and {@code aio_complete_rw} puts its
 * event in the ring before {@code io_submit} returns; with irqmode 2 it ends in its timer's
 * interrupt, which wakes the task if it sleeps in {@code io_getevents}. A bio that finds no tag
 * (more requests at once than the queue has tags, with irqmode 2) sleeps in {@code blk_mq_get_tag}
 * until a freed tag wakes it, and {@code io_submit} goes on.
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
  private final ArrayDeque<SubmitGroup<AioKiocb>> groups = new ArrayDeque<>();
  private List<Sqe> iocbs = List.of();
  private List<AioKiocb> pending = List.of();
  private List<IoEvent> events = List.of();
  private Returned returned;
  private int toWait;

  /**
   * What io_submit has still to submit while it sleeps for a tag, the bio that found none first.
   */
  private List<Bio> waitingForTag = List.of();

  AioPath(CpuCore c, SubmitterPath thread) {
    this.c = c;
    this.loop = thread.loop();
    this.thread = thread;
    this.ctx = c.aio;
  }

  /** The loop's head: prep iocbs if none are left over, then io_submit. */
  @Override
  public void pass(long t, Outbox out) {
    int toPrep = c.sub.toPrep();
    if (toPrep > 0) {
      iocbs = c.sub.prepAio(toPrep, t, c.costs.callPs(KernelFn.PREP_MORE_IOS_AIO));
      t += c.charge(CpuTime.SUBMIT, KernelFn.PREP_MORE_IOS_AIO, iocbs.size());
    }
    c.sub.beginPass(toPrep > 0 ? iocbs.size() : 0);
    toWait = c.sub.enterArgs().toWait();
    t += c.charge(CpuTime.SUBMIT, CpuPaths.IO_SUBMIT_PATH, 1);
    List<AioKiocb> reqs = new ArrayList<>();
    for (Sqe iocb : iocbs) {
      reqs.add(ctx.getReq(iocb));
    }
    iocbs = List.of();
    if (reqs.isEmpty()) {
      submitted(t, out);
      return;
    }
    t += c.charge(CpuTime.SUBMIT, CpuPaths.IO_SUBMIT_ONE_PATH, reqs.size());
    pending = reqs;
    send(
        Phase.ALLOC_BIOS,
        c.bioset,
        new BioSetActor.AllocBios(
            t,
            c.index,
            CpuTime.SUBMIT,
            reqs.size(),
            false,
            c.cfg.nrVecs(),
            KernelFn.BIO_ALLOC_KIOCB,
            c.biosetReplies),
        out);
  }

  /** A reply to the thread's call. */
  @Override
  public void handle(SimMessage m, Outbox out) {
    if (m instanceof BioSetActor.Allocated a) {
      loop.answered(Phase.ALLOC_BIOS);
      allocated(a, out);
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
   * __blkdev_direct_IO_async of each iocb: its bio set up (not polled, no REQ_NOWAIT), grouped by
   * hardware queue under a plug with no {@code nr_ios}.
   */
  private void allocated(BioSetActor.Allocated a, Outbox out) {
    groups.addAll(SubmitGroup.of(a.bios(), pending, 1, this::setUp));
    pending = List.of();
    nextGroup(a.atPs() + c.charge(CpuTime.SUBMIT, CpuPaths.PAGES_PATH, a.bios().size()), out);
  }

  private SimRef<BlockDevice.Command> setUp(Bio bio, AioKiocb req) {
    bio.setRange(req.iocb().off() >> 9, req.iocb().len());
    bio.setOwner(req);
    return c.cfg.disk((int) req.iocb().userData()).submitTo(c.index, false);
  }

  private void nextGroup(long t, Outbox out) {
    SubmitGroup<AioKiocb> g = groups.peekFirst();
    if (g == null) {
      submitted(t, out);
      return;
    }
    send(
        Phase.SUBMIT_BIOS,
        g.to(),
        new BlockDevice.SubmitBio(t, c.call(CpuTime.SUBMIT), g.bios(), g.plugNrIos()),
        out);
  }

  /**
   * The plug was flushed: a bio that ended in queue_rq (irqmode 0 or 1) has aio_complete_rw post
   * its event now; the others end by their timers' interrupts.
   */
  private void queued(BlockDevice.Submitted q, Outbox out) {
    groups.pollFirst();
    if (!q.wouldBlock().isEmpty()) {
      throw new InvariantBroken(c.self.name() + ": an aio bio found no tag");
    }
    long t = q.atPs() + c.charge(CpuTime.SUBMIT, CpuPaths.AIO_END_IO_PATH, q.ended().size());
    for (Bio bio : q.ended()) {
      ctx.complete((AioKiocb) bio.owner(), CpuCore.res(bio));
    }
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

  /** io_submit returns to user space. */
  private void submitted(long t, Outbox out) {
    returned = Returned.FROM_IO_SUBMIT;
    send(Phase.RETURN, c.self, new Cpu.Resume(t, c.slot), out);
  }

  /** In user space after a syscall: reap what io_getevents gave, then wait for more or loop. */
  private void back(long t, Outbox out) {
    if (returned == Returned.FROM_IO_SUBMIT) {
      c.sub.aioCall(true);
    } else {
      long per = c.costs.callPs(KernelFn.REAP_EVENTS_AIO);
      int r = c.sub.aioReap(events, t, per, ps -> c.latencyNs.recordValue(ps / 1000));
      if (r < 0) {
        thread.exitThread(t, out);
        return;
      }
      t += c.charge(CpuTime.SUBMIT, KernelFn.REAP_EVENTS_AIO, r);
      toWait -= r;
    }
    if (toWait > 0) {
      getEvents(t, out);
    } else if (c.sub.finishing()) {
      thread.exitThread(t, out);
    } else {
      pass(t, out);
    }
  }

  /** io_getevents(min_nr = nr = to_wait). */
  private void getEvents(long t, Outbox out) {
    c.sub.aioCall(false);
    waitEvents(t + c.charge(CpuTime.SUBMIT, CpuPaths.IO_GETEVENTS_PATH, 1), out);
  }

  /**
   * read_events: copy {@code to_wait} events out once the ring has them, or sleep on {@code
   * ctx->wait} until an aio_complete wakes the task to look again.
   */
  private void waitEvents(long t, Outbox out) {
    if (ctx.available() + ctx.inFlight() < toWait) {
      c.sub.hangIn(
          "hangs in io_getevents: min_nr="
              + toWait
              + " with "
              + ctx.available()
              + " events in the ring and no more to come; t/io_uring would sleep here until killed");
      thread.exitThread(t, out);
      return;
    }
    if (ctx.available() < toWait) {
      thread.sleep(t + c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1), Phase.SLEEP);
      return;
    }
    events = ctx.readEvents(toWait);
    t += c.charge(CpuTime.SUBMIT, KernelFn.AIO_READ_EVENTS_RING, events.size());
    returned = Returned.FROM_IO_GETEVENTS;
    send(Phase.RETURN, c.self, new Cpu.Resume(t, c.slot), out);
  }

  private <M extends SimMessage> void send(Phase call, SimRef<M> to, M message, Outbox out) {
    loop.to(call);
    out.send(to, message);
  }

  /** An interrupt's aio_complete woke the task in io_getevents: it looks at the ring again. */
  @Override
  public void wake(long t, Outbox out) {
    loop.switchedIn();
    waitEvents(t + c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1), out);
  }

  @Override
  public void audit(Books books, String name) {
    ctx.audit(books, name);
    books.drainedEqual(ctx.read(), c.sub.reaps(), name + ": aio events read vs t/io_uring's reaps");
  }
}

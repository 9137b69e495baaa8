package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.Outbox;
import blksim.queues.block.bio.Bio;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.EnterLoop.Phase;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRingCtx;
import java.util.List;

/**
 * The submitter's reaping on an IOPOLL ring ({@link SubmitterPath}): {@code io_iopoll_check}'s
 * loop, in which {@code io_do_iopoll} polls the hardware queue of the request at the head of the
 * ring's IOPOLL list, ends the bios it finds and posts CQEs for the completed prefix; after the
 * thread ended, the ring's teardown, which polls until the list is empty.
 */
final class IopollCheck {
  private final CpuCore c;
  private final SubmitterPath thread;
  private final EnterLoop loop;
  private final IoWqOwner iowq;

  IopollCheck(CpuCore c, SubmitterPath thread, IoWqOwner iowq) {
    this.c = c;
    this.thread = thread;
    this.loop = thread.loop();
    this.iowq = iowq;
  }

  /** io_do_iopoll: poll the hardware queue of the request at the head of the IOPOLL list. */
  void poll(long t, Outbox out) {
    IoKiocb head = c.ring.iopollHead();
    if (head.state() == IoKiocb.State.COMPLETED) {
      // Another CPU's poll completed it: io_do_iopoll stops at it and flushes, polling nothing.
      afterPut(t + c.charge(CpuTime.POLL, KernelFn.IO_DO_IOPOLL, 1), out);
      return;
    }
    Bio bio = head.kiocbPrivate();
    loop.teardownPolls();
    if (!bio.polled() && !CpuCore.diskOf(head, c.cfg).isBioBased()) { // no poll queue: at once
      thread.send(Phase.POLL, c.blockReplies, new BlockDevice.Polled(t, List.of()), out);
      return;
    }
    thread.send(
        Phase.POLL,
        CpuCore.diskOf(head, c.cfg).pollTo(bio.cookie()),
        new BlockDevice.PollBio(t, c.call(CpuTime.POLL), bio),
        out);
  }

  /** bio_endio of each bio found: blkdev_bio_end_io_async, ki_complete, then bio_put. */
  void onPolled(BlockDevice.Polled m, Outbox out) {
    List<Bio> ended = m.ended();
    if (ended.isEmpty()) {
      loop.foundNothing();
      afterPut(m.atPs() + c.charge(CpuTime.POLL, CpuPaths.EMPTY_POLL_PATH, 1), out);
      return;
    }
    loop.foundSome();
    long t = c.endPolled(ended, m.atPs(), out);
    thread.send(
        Phase.PUT_POLLED,
        c.bioset,
        new BioSetActor.PutBios(t, c.index, CpuTime.POLL, ended, c.biosetReplies),
        out);
  }

  /** The end of io_do_iopoll: post CQEs for the completed prefix; poll again or return. */
  void afterPut(long t, Outbox out) {
    if (loop.exiting()) {
      c.ring.dropCompletedAtExit();
      if (c.ring.iopollListEmpty()) {
        thread.teardownIdle(t);
      } else {
        check(t, out); // io_iopoll_try_reap_events's cond_resched lets local work run
      }
      return;
    }
    IoRingCtx.Flushed flushed = c.ring.iopollFlushCompleted();
    int nr = flushed.posted();
    t += c.charge(CpuTime.POLL, CpuPaths.IOPOLL_COMPLETE_PATH, nr);
    t += c.charger.charge(c.index, CpuTime.POLL, c.kiocbBack, flushed.elsewhere());
    if (loop.pollAgain(nr, c.ring) && !c.ksoftirqd.pending() && !c.needResched.test(t)) {
      poll(t, out);
    } else { // enough events, or need_resched: ksoftirqd or another task runs as it returns
      thread.leave(t, out);
    }
  }

  /**
   * io_iopoll_check's mutex_lock: where ksoftirqd was woken (TIF_NEED_RESCHED), it runs first; in
   * the ring's teardown ({@code io_iopoll_try_reap_events}' cond_resched) so does another task of
   * the CPU whose turn it is.
   */
  void check(long t, Outbox out) {
    if (c.ksoftirqd.pending() || loop.exiting() && c.needResched.test(t)) {
      thread.send(Phase.RESCHED, c.self, new Cpu.Resched(t, c.slot), out);
    } else {
      poll(loop.exiting() ? t : iowq.relock(t, out), out);
    }
  }
}

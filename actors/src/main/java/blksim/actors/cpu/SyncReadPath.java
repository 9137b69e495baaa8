package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.Disk;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioOwner;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.EnterLoop.Phase;
import blksim.queues.io_uring.Sqe;
import java.util.List;

/**
 * {@code t/io_uring -S1}'s thread on its CPU ({@code submitter_sync_fn}): one {@code preadv2} at a
 * time, {@code RWF_HIPRI} with {@code -p1}. The read's bio lives on the stack ({@code
 * __blkdev_direct_IO_simple}, block/fops.c 5.15 to 6.1): no bio_set, no cache. After {@code
 * submit_bio} the task waits for it: a polled bio it polls itself ({@code bio_poll}), one that
 * ended in {@code queue_rq} (irqmode 0 or 1) is done when {@code submit_bio} returns.
 */
final class SyncReadPath implements ThreadLoop {
  /**
   * Who a sync read's bio completes: the task that waits on the stack, named as its ring is (the
   * CPU's number for the CPU's first task).
   */
  record Waiter(int owner) implements BioOwner {}

  private final CpuCore c;
  private final EnterLoop loop;
  private final SubmitterPath thread;
  private final Waiter waiter;
  private Sqe read;
  private Bio bio;

  /** Where the read's bio went: the hardware queue it sleeps on if it finds no tag. */
  private SimRef<BlockDevice.Command> queue;

  private long calls;
  private long returned;

  SyncReadPath(CpuCore c, SubmitterPath thread) {
    this.c = c;
    this.loop = thread.loop();
    this.thread = thread;
    this.waiter = new Waiter(c.owner);
  }

  /** The loop's head: the next file and offset, then preadv2 down to submit_bio. */
  @Override
  public void pass(long t, Outbox out) {
    t += c.charge(CpuTime.SUBMIT, KernelFn.SUBMITTER_SYNC_FN, 1);
    read = c.sub.syncRead(t);
    calls++;
    t += c.charge(CpuTime.SUBMIT, CpuPaths.PREADV2_PATH, 1);
    t += c.charge(CpuTime.SUBMIT, CpuPaths.PAGES_PATH, 1);
    bio = Bio.onStack((int) calls);
    bio.setRange(read.off() >> 9, read.len());
    bio.setOwner(waiter);
    Disk disk = c.cfg.disk((int) read.userData());
    boolean polled = c.cfg.hipri();
    if (polled && disk.pollsBlkMq()) {
      bio.setPolled();
    } else {
      // submit_bio_noacct on a queue without QUEUE_FLAG_POLL clears REQ_POLLED
      polled = false;
    }
    queue = disk.submitTo(c.index, polled);
    send(
        Phase.SUBMIT_BIOS,
        queue,
        new BlockDevice.SubmitBio(t, c.call(CpuTime.SUBMIT), List.of(bio)),
        out);
  }

  /** A reply to the thread's call. */
  @Override
  public void handle(SimMessage m, Outbox out) {
    if (m instanceof BlockDevice.Submitted q) {
      loop.answered(Phase.SUBMIT_BIOS);
      if (q.ended().contains(bio)) {
        ended(q.atPs(), CpuTime.SUBMIT, out);
      } else if (!q.wouldBlock().isEmpty()) {
        throw new InvariantBroken(c.self.name() + ": a sync read found no tag");
      } else if (bio.owner() == null) {
        // an interrupt taken before the task looked ended it: bi_private is NULL, no sleep
        waitOver(q.atPs(), out);
      } else if (bio.polled()) {
        poll(q.atPs(), out);
      } else {
        // blk_io_schedule: the task sleeps until the interrupt that ends its bio wakes it
        thread.sleep(q.atPs() + c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1), Phase.SLEEP);
      }
    } else if (m instanceof BlockDevice.Polled p) {
      loop.answered(Phase.POLL);
      long t = p.atPs() + endOthers(p.ended(), p.atPs(), out);
      if (p.ended().contains(bio)) {
        ended(t, CpuTime.POLL, out);
      } else if (bio.owner() == null) {
        waitOver(t, out); // another thread's poll ended it first
      } else {
        // bio_poll found nothing: blk_io_schedule until the poll that ends it wakes the task
        thread.sleep(t + c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1), Phase.SLEEP);
      }
    } else if (m instanceof BlockDevice.Slept s) {
      // more threads than tags: blk_mq_get_tag sleeps on the tag wait queue, the CPU idles
      loop.answered(Phase.SUBMIT_BIOS);
      thread.sleep(s.atPs(), Phase.TAG_SLEEP);
    } else if (m instanceof BlockDevice.Woken w) {
      loop.answered(Phase.TAG_SLEEP);
      send(
          Phase.SUBMIT_BIOS,
          queue,
          new BlockDevice.TagRetry(w.atPs(), c.call(CpuTime.SUBMIT), List.of(bio)),
          out);
    } else if (m instanceof Cpu.Resume r) {
      loop.answered(Phase.RETURN);
      returned(r.atPs(), out);
    } else {
      throw new IllegalStateException("not a reply to a sync read: " + m);
    }
  }

  /**
   * The other threads' sync reads this poll ended (a poll queue they share): their bio_endio and
   * blkdev_bio_end_io_simple run here, writing lines their CPUs wrote, and wake their tasks.
   *
   * @return the time it took
   */
  private long endOthers(List<Bio> ended, long t, Outbox out) {
    long start = t;
    for (Bio other : ended) {
      if (other != bio) {
        Waiter w = (Waiter) other.owner();
        other.setOwner(null);
        t += c.charge(CpuTime.POLL, CpuPaths.SYNC_END_IO_PATH, 1);
        t += c.charger.charge(c.index, CpuTime.POLL, c.remoteCompletion, 1);
        t += c.charge(CpuTime.POLL, KernelFn.TRY_TO_WAKE_UP, 1);
        out.send(c.peers.get(w.owner()), new Cpu.SyncReadEnded(t, w.owner()));
      }
    }
    return t - start;
  }

  /** bio_poll of the bio on the stack: blk_mq_poll of its hardware queue. */
  private void poll(long t, Outbox out) {
    t += c.charge(CpuTime.POLL, KernelFn.BIO_POLL, 1);
    send(
        Phase.POLL,
        c.cfg.disk((int) read.userData()).pollTo(bio.cookie()),
        new BlockDevice.PollBio(t, c.call(CpuTime.POLL), bio, false),
        out);
  }

  /** The bio ended here: bio_endio, blkdev_bio_end_io_simple; the wait is over. */
  private void ended(long t, CpuTime what, Outbox out) {
    waitOver(t + c.charge(what, CpuPaths.SYNC_END_IO_PATH, 1), out);
  }

  /** An interrupt ended the bio and woke the task, which is switched back in. */
  @Override
  public void wake(long t, Outbox out) {
    loop.switchedIn();
    t += c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
    if (bio.owner() != null) {
      // woken, but bi_private is still set: the loop sleeps again
      thread.sleep(t + c.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1), Phase.SLEEP);
      return;
    }
    waitOver(t, out);
  }

  /** bio_release_pages, bio_uninit, and preadv2 returns. */
  private void waitOver(long t, Outbox out) {
    t += c.charge(CpuTime.SUBMIT, KernelFn.BIO_RELEASE_PAGES, 1);
    send(Phase.RETURN, c.self, new Cpu.Resume(t, c.slot), out);
  }

  /** Back in user space: t/io_uring counts the read, and goes on unless told to finish. */
  private void returned(long t, Outbox out) {
    int ret = CpuCore.res(bio);
    bio.uninitOnStack();
    returned++;
    if (c.sub.syncReturned(read, ret, t, ps -> c.latencyNs.recordValue(ps / 1000))) {
      pass(t, out);
    } else {
      thread.exitThread(t, out);
    }
  }

  private <M extends SimMessage> void send(Phase call, SimRef<M> to, M message, Outbox out) {
    loop.to(call);
    out.send(to, message);
  }

  /** Every preadv2 returned, and its bio left the stack. */
  @Override
  public void audit(Books books, String name) {
    books.drainedEqual(calls, returned, name + ": preadv2 calls vs returns");
    books.drainedEqual(returned, c.sub.done(), name + ": preadv2 returns vs t/io_uring's done");
    books.drainedEqual(calls, c.sub.calls(), name + ": preadv2 calls vs t/io_uring's calls");
    books.drained(bio == null || !bio.inUse(), name + ": a sync read's bio was left in use");
  }
}

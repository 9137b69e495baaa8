package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.Disk;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.fops.BlkdevDirectIoSimple;
import blksim.queues.block.fops.BlkdevDirectIoSimple.Call;
import blksim.queues.books.Books;
import blksim.queues.cost.CpuTime;
import blksim.queues.io_uring.EnterLoop;
import blksim.queues.io_uring.EnterLoop.Phase;
import blksim.queues.io_uring.Sqe;
import java.util.List;

/**
 * {@code t/io_uring -S1}'s thread on its CPU ({@code submitter_sync_fn}): one {@code preadv2} at a
 * time, {@code RWF_HIPRI} with {@code -p1}. The kernel's part, {@code __blkdev_direct_IO_simple}
 * with its bio on the stack and the task's wait for it, is {@link BlkdevDirectIoSimple}'s; this
 * turns each place its path leaves block/fops.c ({@link Call}) into its message and brings the
 * answer back.
 */
final class SyncReadPath implements ThreadLoop {
  private final CpuCore c;
  private final EnterLoop loop;
  private final SubmitterPath thread;
  private final BlkdevDirectIoSimple dio;

  /** Where the read's bio went: the hardware queue it sleeps on if it finds no tag. */
  private SimRef<BlockDevice.Command> queue;

  SyncReadPath(CpuCore c, SubmitterPath thread) {
    this.c = c;
    this.loop = thread.loop();
    this.thread = thread;
    this.dio = new BlkdevDirectIoSimple(c.charger, c.index, c.owner, c.self.name(), c.cfg.hipri());
  }

  /** The loop's head: the next file and offset, then preadv2 down to submit_bio. */
  @Override
  public void pass(long t, Outbox out) {
    Sqe read = c.sub.submitterSyncFn(t, c.charger, c.index);
    Disk disk = c.cfg.disk((int) read.userData());
    call(dio.blkdevDirectIoSimple(read, disk.pollsBlkMq(), read.issuedAtPs()), out);
  }

  /** A reply to the thread's call. */
  @Override
  public void handle(SimMessage m, Outbox out) {
    if (m instanceof BlockDevice.Submitted q) {
      loop.answered(Phase.SUBMIT_BIOS);
      call(dio.submitBioReturned(q.ended(), q.wouldBlock(), q.atPs()), out);
    } else if (m instanceof BlockDevice.Polled p) {
      loop.answered(Phase.POLL);
      Call next = dio.bioPolled(p.ended(), p.atPs());
      for (BlkdevDirectIoSimple.Woken w : dio.woken()) { // their CPUs hear of it
        int owner = w.waiter().owner();
        out.send(c.peers.get(owner), new Cpu.SyncReadEnded(w.atPs(), owner));
      }
      call(next, out);
    } else if (m instanceof BlockDevice.Slept s) {
      // more threads than tags: blk_mq_get_tag sleeps on the tag wait queue, the CPU idles
      loop.answered(Phase.SUBMIT_BIOS);
      thread.sleep(s.atPs(), Phase.TAG_SLEEP);
    } else if (m instanceof BlockDevice.Woken w) {
      loop.answered(Phase.TAG_SLEEP);
      send(
          Phase.SUBMIT_BIOS,
          queue,
          new BlockDevice.TagRetry(w.atPs(), c.call(CpuTime.SUBMIT), List.of(dio.bio())),
          out);
    } else if (m instanceof Cpu.Resume r) {
      loop.answered(Phase.RETURN);
      returned(r.atPs(), out);
    } else {
      throw new IllegalStateException("not a reply to a sync read: " + m);
    }
  }

  /** Makes the call where the read's path left block/fops.c: a message, or the task's sleep. */
  private void call(Call call, Outbox out) {
    if (call instanceof Call.SubmitBio s) {
      queue = c.cfg.disk((int) s.read().userData()).submitTo(c.index, s.polled());
      send(
          Phase.SUBMIT_BIOS,
          queue,
          new BlockDevice.SubmitBio(s.atPs(), c.call(CpuTime.SUBMIT), List.of(s.bio())),
          out);
    } else if (call instanceof Call.PollBio p) {
      send(
          Phase.POLL,
          c.cfg.disk((int) p.read().userData()).pollTo(p.bio().cookie()),
          new BlockDevice.PollBio(p.atPs(), c.call(CpuTime.POLL), p.bio(), false),
          out);
    } else if (call instanceof Call.Sleep s) {
      thread.sleep(s.atPs(), Phase.SLEEP);
    } else if (call instanceof Call.Return r) {
      send(Phase.RETURN, c.self, new Cpu.Resume(r.atPs(), c.slot), out);
    }
  }

  /** An interrupt ended the bio and woke the task, which is switched back in. */
  @Override
  public void wake(long t, Outbox out) {
    loop.switchedIn();
    call(dio.scheduled(t), out);
  }

  /** Back in user space: t/io_uring counts the read, and goes on unless told to finish. */
  private void returned(long t, Outbox out) {
    int ret = dio.preadv2Returned();
    if (c.sub.syncReturned(dio.read(), ret, t, ps -> c.latencyNs.recordValue(ps / 1000))) {
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
    dio.audit(books, name, c.sub.done(), c.sub.calls());
  }
}

package blksim.queues.block.fops;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.fs.aio.AioKiocb;
import blksim.queues.fs.aio.KioCtx;
import blksim.queues.io_uring.ForeignCompletions;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRw;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code bio_endio} of the bios that one completion on a CPU ended, each through its {@code
 * bi_end_io} (block/fops.c): {@code blkdev_bio_end_io_async} of an io_uring request, whose {@code
 * ki_complete} is its ring's ({@link IoRw#kiComplete}), or of an aio request ({@link
 * AioKiocb#aioCompleteRw}); {@code blkdev_bio_end_io_simple} of a sync read, whose bio lives on its
 * task's stack ({@link BlkdevDirectIoSimple#blkdevBioEndIoSimple}).
 *
 * <p>A request is its ring's, and its ring is its task's: one of another CPU ends on its ring all
 * the same (a kblockd run or an io-wq worker on this CPU dispatched it), and that CPU's task hears
 * of it ({@link ForeignCompletions}); one of another task of this CPU queues task_work for that
 * task. Each task whose request ended is woken once, if it sleeps, however many ended. Only a bio
 * of a bio_set goes back to it.
 *
 * <p>One instance serves one completion: a hard interrupt's (or ksoftirqd's) ended bios, or the
 * bios that ended in {@code queue_rq} while a task submitted.
 */
public final class BioEndio {
  /** The CPU's threads as the bios' ends find them, by their slot on the CPU. */
  public interface Threads {
    /** How many threads the CPU runs. */
    int count();

    /**
     * The slot of the thread whose ring is {@code ringOwner} ({@link IoKiocb#owner}), or -1 when
     * the ring is another CPU's.
     */
    int ringSlot(int ringOwner);

    /** The slot of the thread whose libaio context is {@code ctx}. */
    int aioSlot(KioCtx ctx);

    /** The slot of the thread whose ring is {@code owner}, whose sync read a bio is. */
    int syncSlot(int owner);

    /** {@code ki_complete} of {@code req} on the ring of the thread in {@code slot}. */
    KernelFn[] kiComplete(int slot, IoKiocb req, int res);

    /** The ring of the thread in {@code slot} hears that {@code req} ended (it may be io-wq's). */
    void ended(int slot, IoKiocb req);

    /** io_complete_rw's task_work wakes the thread in {@code slot} if it sleeps: whether it did. */
    boolean wakeIfSleeping(int slot);
  }

  private final Charger charger;
  private final int cpu;
  private final CpuTime what;
  private final Threads threads;
  private final ForeignCompletions elsewhere;

  /** The {@code bi_end_io} of another CPU's ring's request, run here ({@link IoRw#endPath}). */
  private final KernelFn[] foreignEndPath;

  private final boolean[] woken;
  private final List<Bio> put = new ArrayList<>();

  /**
   * @param what the context the ends are charged to: the interrupt's, ksoftirqd's or the task's
   * @param elsewhere where another CPU's ring's requests are gathered, to be sent on to its CPU
   * @param iopoll whether the rings are IOPOLL (every ring of a run is of one kind)
   */
  public BioEndio(
      Charger charger,
      int cpu,
      CpuTime what,
      Threads threads,
      ForeignCompletions elsewhere,
      boolean iopoll) {
    this.charger = charger;
    this.cpu = cpu;
    this.what = what;
    this.threads = threads;
    this.elsewhere = elsewhere;
    this.foreignEndPath = IoRw.endPath(iopoll);
    this.woken = new boolean[threads.count()];
  }

  /**
   * The bios a hard interrupt (or ksoftirqd) ended, from {@code t}, each through its {@code
   * bi_end_io}; the tasks to wake are woken by {@link #wakeTasks}, after another CPU's requests
   * have gone to it. A CPU's only thread is looked at whatever ended.
   *
   * @return when they are done
   */
  public long inIrq(long t, List<Bio> ended) {
    if (woken.length == 1) {
      woken[0] = true;
    }
    for (Bio bio : ended) {
      if (bio.owner() instanceof IoKiocb req && threads.ringSlot(req.owner()) < 0) {
        elsewhere.add(req, IoRw.res(bio));
        t += charger.charge(cpu, what, foreignEndPath, 1);
      } else {
        t += charger.charge(cpu, what, endIo(bio), 1);
      }
      if (bio.pool() != null) {
        put.add(bio);
      }
    }
    return t;
  }

  /**
   * What the end of an interrupt's bios comes to: the other CPUs' rings' messages, when the
   * wake-ups after them are done, and the bios that go back to their bio_set.
   */
  public record IrqEnd(ForeignCompletions.Told told, long atPs, List<Bio> put) {}

  /**
   * The bios a hard interrupt (or ksoftirqd) ended, from {@code t}, to the end, in the model's
   * order: each one's {@code bi_end_io} ({@link #inIrq}); then each other CPU's ring hears of its
   * requests, {@code remote} per request for the lines that come over ({@link
   * ForeignCompletions#tell}); then this CPU's tasks are woken ({@link #wakeTasks}); then {@code
   * bio_put} of those of a bio_set ({@link #toPut}). In the kernel {@code blkdev_bio_end_io_async}
   * does it bio by bio (its request's {@code ki_complete}, which wakes the task at its first, then
   * its {@code bio_put}); the model charges the same work grouped, and the other CPUs hear before
   * this one's tasks are woken.
   */
  public IrqEnd irqEnded(long t, List<Bio> ended, CostStep remote) {
    t = inIrq(t, ended);
    ForeignCompletions.Told told = elsewhere.tell(charger, cpu, what, remote, t);
    return new IrqEnd(told, wakeTasks(told.atPs()), put);
  }

  /**
   * The {@code bi_end_io} of a bio of this CPU's threads: the functions it ran. The thread it is
   * for is to be woken.
   */
  private KernelFn[] endIo(Bio bio) {
    if (bio.owner() instanceof AioKiocb req) {
      woken[threads.aioSlot(req.ctx())] = true;
      return req.aioCompleteRw(IoRw.res(bio));
    }
    if (bio.pool() == null) {
      if (bio.owner() instanceof BlkdevDirectIoSimple.Waiter w) {
        woken[threads.syncSlot(w.owner())] = true;
      }
      return BlkdevDirectIoSimple.blkdevBioEndIoSimple(bio);
    }
    IoKiocb req = (IoKiocb) bio.owner();
    int slot = threads.ringSlot(req.owner());
    KernelFn[] fns = threads.kiComplete(slot, req, IoRw.res(bio));
    threads.ended(slot, req);
    woken[slot] = true;
    return fns;
  }

  /**
   * io_complete_rw's task_work (or the sync read's end) wakes each thread whose request ended here,
   * once, if it sleeps.
   *
   * @return when the wake-ups are done
   */
  public long wakeTasks(long t) {
    for (int slot = 0; slot < woken.length; slot++) {
      if (woken[slot] && threads.wakeIfSleeping(slot)) {
        t += charger.charge(cpu, what, KernelFn.TRY_TO_WAKE_UP, 1);
      }
    }
    return t;
  }

  /** The bios that go back to their bio_set: every ended one but a sync read's, on its stack. */
  public List<Bio> toPut() {
    return put;
  }

  /**
   * The bios that ended in {@code queue_rq} while the thread in {@code slot} submitted, from {@code
   * t}: each of its own ring's completes and {@code done} hears of it; one of another thread of
   * this CPU completes on that thread's ring, and its task_work wakes it at once if it sleeps; one
   * of another CPU's ring is gathered for it.
   *
   * @return when they are done
   */
  public long inSubmit(long t, int slot, List<Bio> ended, Consumer<IoKiocb> done) {
    for (Bio bio : ended) {
      IoKiocb req = (IoKiocb) bio.owner();
      int owner = threads.ringSlot(req.owner());
      if (owner < 0) {
        elsewhere.add(req, IoRw.res(bio));
        t += charger.charge(cpu, what, foreignEndPath, 1);
      } else if (owner != slot) {
        t += charger.charge(cpu, what, threads.kiComplete(owner, req, IoRw.res(bio)), 1);
        threads.ended(owner, req);
        if (threads.wakeIfSleeping(owner)) { // its task_work wakes it: the CPU runs it
          t += charger.charge(cpu, what, KernelFn.TRY_TO_WAKE_UP, 1);
        }
      } else {
        t += charger.charge(cpu, what, threads.kiComplete(slot, req, IoRw.res(bio)), 1);
        done.accept(req);
      }
    }
    return t;
  }

  /**
   * The bios that ended in {@code queue_rq} while a task with no ring of its own submitted them,
   * from {@code t}: dmsetup's resume, resubmitting what the suspend held (only IOPOLL rings are
   * suspended). Each bio runs {@code blkdev_bio_end_io_async} and {@code io_complete_rw_iopoll}
   * ({@link IoRw#END_IO_PATH}), charged to the submitting task on {@code cpu}; then each ring hears
   * of its requests, ring by ring ({@link ForeignCompletions#tell}), a ring of this CPU too, whose
   * request lines another CPU's poll wrote last.
   *
   * @return the rings' messages, and when the task is done with them
   */
  public static ForeignCompletions.Told inSubmitWithoutRing(
      Charger charger, int cpu, CostStep remote, long t, List<Bio> ended) {
    ForeignCompletions rings = new ForeignCompletions();
    for (Bio bio : ended) {
      rings.add((IoKiocb) bio.owner(), IoRw.res(bio));
    }
    t += charger.charge(cpu, CpuTime.SUBMIT, IoRw.END_IO_PATH, ended.size());
    return rings.tell(charger, cpu, CpuTime.SUBMIT, remote, t);
  }
}

package blksim.queues.block.fops;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioOwner;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.Sqe;
import java.util.ArrayList;
import java.util.List;

/**
 * One task's {@code preadv2} of a raw block device, t/io_uring's {@code -S1} read, down to {@code
 * __blkdev_direct_IO_simple} (block/fops.c; docs/kernel.md section 10), as 5.15 to 5.18 run it. The
 * read's bio lives on the task's stack: {@code bio_init}, the user pages, {@code bio_set_polled}
 * under {@code IOCB_HIPRI} ({@code RWF_HIPRI}, when the queue polls), and {@code submit_bio} with
 * no plug; no bio_set, no cache. Then the task waits: the wait is over once {@code bi_private} is
 * NULL, else it polls the bio ({@code bio_poll}) under {@code IOCB_HIPRI} or sleeps in {@code
 * blk_io_schedule} until {@code blkdev_bio_end_io_simple} wakes it; then {@code bio_release_pages},
 * and the syscall returns. Each method charges what the kernel runs to the task's CPU and returns
 * where the path leaves block/fops.c ({@link Call}).
 *
 * <p>A known difference, left for an issue: from 5.19 on ("block: ignore RWF_HIPRI hint for sync
 * dio", 9650b453a3d4) {@code __blkdev_direct_IO_simple} ignores {@code RWF_HIPRI}: no {@code
 * bio_set_polled}, no {@code bio_poll}, the task sleeps. The model polls as 5.15 to 5.18 do
 * whatever the kernel version.
 */
public final class BlkdevDirectIoSimple {
  /** preadv2 down to submit_bio, per read; the bio is on the stack. */
  public static final KernelFn[] PREADV2_PATH = {
    KernelFn.SYSCALL,
    KernelFn.FDGET_FDPUT,
    KernelFn.VFS_READV,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO_SIMPLE,
    KernelFn.BIO_INIT
  };

  /** A sync read's bio ended: bio_endio, and its end_io, which wakes the task if it sleeps. */
  public static final KernelFn[] END_IO_PATH = {
    KernelFn.BIO_ENDIO, KernelFn.BLKDEV_BIO_END_IO_SIMPLE
  };

  /**
   * {@code bio.bi_private = current}: who a sync read's bio completes, the task that waits on the
   * stack, named as its ring is (the CPU's number for the CPU's first task).
   */
  public record Waiter(int owner) implements BioOwner {}

  /**
   * A task whose sync read this task's poll ended: {@code blkdev_bio_end_io_simple} woke it ({@code
   * try_to_wake_up}) at {@code atPs}.
   */
  public record Woken(Waiter waiter, long atPs) {}

  /**
   * Where the task's read leaves block/fops.c: a call into the block layer, a sleep, or the
   * syscall's return. The CPU makes the call and brings its answer back to the method each record
   * names.
   */
  public sealed interface Call {
    /** When the call is made, in virtual time. */
    long atPs();

    /**
     * {@code submit_bio} of {@code bio}, the bio of {@code read}, set up; {@code polled} says
     * whether it has REQ_POLLED, which picks its hardware queue. Its return goes to {@link
     * #submitBioReturned}.
     */
    record SubmitBio(long atPs, Sqe read, Bio bio, boolean polled) implements Call {}

    /**
     * {@code bio_poll} of {@code bio}, the bio of {@code read}: {@code blk_mq_poll} of the hardware
     * queue its cookie names; the bios it ends go to {@link #bioPolled}.
     */
    record PollBio(long atPs, Sqe read, Bio bio) implements Call {}

    /**
     * {@code blk_io_schedule}: the task sleeps from {@code atPs}, its CPU idle, until the end of
     * its bio wakes it ({@link #scheduled}).
     */
    record Sleep(long atPs) implements Call {}

    /** preadv2 returns to user space; there {@link #preadv2Returned}. */
    record Return(long atPs) implements Call {}
  }

  private final Charger charger;
  private final int cpu;
  private final String name;
  private final boolean hipri;
  private final Waiter waiter;

  /** Ending another task's read writes its bio and wakes its task: lines its CPU wrote last. */
  private final CostStep remoteCompletion;

  /** The tasks the last poll woke, in order. */
  private final List<Woken> woken = new ArrayList<>();

  private Sqe read;
  private Bio bio;
  private long calls;
  private long returned;

  /**
   * @param charger the charger of the task's CPU, {@code cpu}
   * @param owner the task, as its {@link Waiter} names it
   * @param name the task's CPU, for messages
   * @param hipri {@code RWF_HIPRI} ({@code -p1}): the kiocb has {@code IOCB_HIPRI}
   */
  public BlkdevDirectIoSimple(Charger charger, int cpu, int owner, String name, boolean hipri) {
    this.charger = charger;
    this.cpu = cpu;
    this.name = name;
    this.hipri = hipri;
    this.waiter = new Waiter(owner);
    this.remoteCompletion = charger.costs().remoteCompletion();
  }

  /**
   * preadv2 of {@code read} at {@code t}, from the syscall down to {@code submit_bio}: a bio on the
   * stack for it ({@code bio_init}), its range and its pages, {@code bi_private} the task; polled
   * under {@code IOCB_HIPRI}, unless its queue does not poll ({@code queuePolls}: on a queue
   * without QUEUE_FLAG_POLL {@code submit_bio_checks}, block/blk-core.c 5.15 to 5.18, clears
   * REQ_POLLED, REQ_HIPRI before 5.17).
   */
  public Call.SubmitBio blkdevDirectIoSimple(Sqe read, boolean queuePolls, long t) {
    this.read = read;
    calls++;
    t += charge(CpuTime.SUBMIT, PREADV2_PATH, 1);
    t += charge(CpuTime.SUBMIT, IoRw.PAGES_PATH, 1);
    bio = Bio.onStack((int) calls);
    bio.setRange(read.off() >> 9, read.len());
    bio.setOwner(waiter);
    boolean polled = hipri && queuePolls;
    if (polled) {
      bio.setPolled();
    }
    return new Call.SubmitBio(t, read, bio, polled);
  }

  /**
   * {@code submit_bio} returned at {@code t}, having ended {@code ended} in {@code queue_rq}
   * (irqmode 0 or 1); then the wait's first look.
   *
   * @throws InvariantBroken if the bio found no tag and failed: a sync kiocb has no REQ_NOWAIT
   */
  public Call submitBioReturned(List<Bio> ended, List<Bio> wouldBlock, long t) {
    if (ended.contains(bio)) {
      return ended(t, CpuTime.SUBMIT);
    }
    if (!wouldBlock.isEmpty()) {
      throw new InvariantBroken(name + ": a sync read found no tag");
    }
    if (bio.owner() == null) {
      // an interrupt taken before the task looked ended it: bi_private is NULL, no sleep
      return waitOver(t);
    }
    if (bio.polled()) {
      return new Call.PollBio(t + charge(CpuTime.POLL, KernelFn.BIO_POLL, 1), read, bio);
    }
    // blk_io_schedule: the task sleeps until the interrupt that ends its bio wakes it
    return new Call.Sleep(schedule(t));
  }

  /**
   * {@code bio_poll} returned at {@code t}, having ended {@code ended}. The other tasks' sync reads
   * among them (a poll queue they share) end here first: their {@code bio_endio} and {@code
   * blkdev_bio_end_io_simple} run on this CPU, writing lines their CPUs wrote, and wake their tasks
   * ({@link #woken}, which the CPU tells before it makes the call). Then the wait looks again: over
   * if the bio ended, here or by another task's poll; else {@code blk_io_schedule} until the poll
   * that ends it wakes the task.
   */
  public Call bioPolled(List<Bio> ended, long t) {
    woken.clear();
    for (Bio other : ended) {
      if (other != bio) {
        Waiter w = (Waiter) other.owner();
        other.setOwner(null);
        t += charge(CpuTime.POLL, END_IO_PATH, 1);
        t += charger.charge(cpu, CpuTime.POLL, remoteCompletion, 1);
        t += charge(CpuTime.POLL, KernelFn.TRY_TO_WAKE_UP, 1);
        woken.add(new Woken(w, t));
      }
    }
    if (ended.contains(bio)) {
      return ended(t, CpuTime.POLL);
    }
    if (bio.owner() == null) {
      return waitOver(t); // another thread's poll ended it first
    }
    return new Call.Sleep(schedule(t));
  }

  /**
   * The woken task is switched back in at {@code t}: {@code schedule()} returns, and the wait looks
   * again: over once {@code bi_private} is NULL; woken with it still set, it sleeps again.
   */
  public Call scheduled(long t) {
    t = schedule(t);
    if (bio.owner() != null) {
      return new Call.Sleep(schedule(t));
    }
    return waitOver(t);
  }

  /**
   * {@code blkdev_bio_end_io_simple} of a sync read's {@code bio}, wherever it ends: {@code
   * WRITE_ONCE(bio->bi_private, NULL)}, the task's wait is over.
   *
   * @return the functions it ran from {@code bio_endio} on, per bio
   */
  public static KernelFn[] blkdevBioEndIoSimple(Bio bio) {
    bio.setOwner(null);
    return END_IO_PATH;
  }

  /** The bio ended here ({@code bio_endio}, {@code blkdev_bio_end_io_simple}): the wait is over. */
  private Call.Return ended(long t, CpuTime what) {
    return waitOver(t + charge(what, blkdevBioEndIoSimple(bio), 1));
  }

  /** {@code bio_release_pages}, and preadv2 returns. */
  private Call.Return waitOver(long t) {
    return new Call.Return(t + charge(CpuTime.SUBMIT, KernelFn.BIO_RELEASE_PAGES, 1));
  }

  /**
   * Back in user space: the read's bio leaves the stack ({@code bio_uninit}).
   *
   * @return what preadv2 returned: the bytes read, or the bio's error
   */
  public int preadv2Returned() {
    int ret = IoRw.res(bio);
    bio.uninitOnStack();
    returned++;
    return ret;
  }

  /** The tasks the last {@link #bioPolled} woke, in order. */
  public List<Woken> woken() {
    return woken;
  }

  /** The read in progress, or the last one. */
  public Sqe read() {
    return read;
  }

  /** The bio on the stack of the read in progress, or of the last one; null before the first. */
  public Bio bio() {
    return bio;
  }

  /** preadv2 calls that reached the block layer. */
  public long calls() {
    return calls;
  }

  /** preadv2 calls that returned. */
  public long returned() {
    return returned;
  }

  /**
   * Every preadv2 returned, and its bio left the stack; against t/io_uring's counts of reads done
   * ({@code done}) and calls ({@code userCalls}).
   */
  public void audit(Books books, String name, long done, long userCalls) {
    books.drainedEqual(calls, returned, name + ": preadv2 calls vs returns");
    books.drainedEqual(returned, done, name + ": preadv2 returns vs t/io_uring's done");
    books.drainedEqual(calls, userCalls, name + ": preadv2 calls vs t/io_uring's calls");
    books.drained(bio == null || !bio.inUse(), name + ": a sync read's bio was left in use");
  }

  private long schedule(long t) {
    return t + charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
  }

  private long charge(CpuTime what, KernelFn fn, int n) {
    return charger.charge(cpu, what, fn, n);
  }

  private long charge(CpuTime what, KernelFn[] fns, int n) {
    return charger.charge(cpu, what, fns, n);
  }
}

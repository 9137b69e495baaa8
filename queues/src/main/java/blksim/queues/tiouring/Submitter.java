package blksim.queues.tiouring;

import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.fs.aio.IoEvent;
import blksim.queues.io_uring.CqRing;
import blksim.queues.io_uring.Cqe;
import blksim.queues.io_uring.EnterArgs;
import blksim.queues.io_uring.SqRing;
import blksim.queues.io_uring.Sqe;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Models t/io_uring's submitter thread, {@code submitter_uring_fn} in fio's t/io_uring.c (the loop
 * is the same from fio-3.28 to master): a state machine that a CPU steps through, one user space
 * stretch at a time.
 *
 * <p>One pass of the loop: {@link #toPrep()} SQEs are written with {@link #prepMoreIos}, then
 * {@link #beginPass} ({@code s->inflight += prepped; to_submit = prepped}); {@link #enterArgs()}
 * gives the {@code io_uring_enter(to_submit, min_complete, flags)} to make; after it returns, user
 * space reaps with {@link #reap}, and {@link #entered} applies t/io_uring's rules to the result and
 * says what comes next: another enter ({@code goto submit} / {@code submit_more}), a new pass, or
 * the end of the thread. The field names are fio's.
 */
public final class Submitter {
  /** {@code to_wait} of the pass of {@code submitter_aio_fn} under way. */
  private int aioToWait;

  /** What the thread does after an io_uring_enter has returned and the CQ ring was reaped. */
  public enum Next {
    /** {@code goto submit} or {@code goto submit_more}: call io_uring_enter again. */
    ENTER,
    /** {@code continue}: a new pass of the loop. */
    PASS,
    /** The loop ended ({@code finish} is set, or a fatal error). */
    EXIT
  }

  /** EAGAIN, the one errno t/io_uring retries. */
  public static final int EAGAIN = 11;

  /** EOPNOTSUPP: what an IOPOLL ring answers for a file not opened with O_DIRECT. */
  public static final int EOPNOTSUPP = 95;

  private final int depth;
  private final int batchSubmit;
  private final int batchComplete;
  private final int bs;
  private final boolean fixedBufs;
  private final boolean registerFiles;
  private final boolean vectored;
  private final SqRing sq;
  private final CqRing cq;
  private final FileCursor files;

  private int inflight;

  private final InFlightClock inFlightClock = new InFlightClock();

  private int prepped;
  private int acceptedInHungCall;

  /** {@code this_reap}: what the last {@link #reapEventsUring} took, or -1. */
  private int thisReap;

  private int toSubmit;
  private long done;
  private long calls;
  private long reaps;
  private boolean finish;

  /** The thread blocks for good in a syscall that never returns ({@link #hangIn}). */
  private boolean hung;

  private final boolean polled;
  private final boolean nop;
  private final java.util.List<String> fatal = new ArrayList<>();

  /**
   * @param fileSizes size in bytes of each file the submitter opened
   * @param rand the submitter's offset stream (t/io_uring seeds taus258 with its tid)
   */
  public Submitter(Config c, SqRing sq, CqRing cq, long[] fileSizes, RandomGenerator rand) {
    this.depth = c.depth();
    this.batchSubmit = c.batchSubmit();
    this.batchComplete = c.batchComplete();
    this.bs = c.bs();
    this.fixedBufs = c.fixedBufs();
    this.registerFiles = c.registerFiles();
    this.vectored = c.vectored();
    this.polled = c.polled();
    this.nop = c.nop();
    this.sq = sq;
    this.cq = cq;
    this.files = new FileCursor(fileSizes, bs, depth, c.randomIo(), rand);
  }

  /** The t/io_uring flags a submitter reads. */
  public record Config(
      int depth,
      int batchSubmit,
      int batchComplete,
      int bs,
      boolean fixedBufs,
      boolean registerFiles,
      boolean vectored,
      boolean randomIo,
      boolean polled,
      boolean nop) {}

  /** At the head of a pass: how many SQEs to prepare ({@code to_prep}), 0 if none. */
  public int toPrep() {
    return prepped == 0 && inflight < depth ? Math.min(depth - inflight, batchSubmit) : 0;
  }

  /**
   * {@code prep_more_ios_uring}: writes up to {@code maxIos} SQEs and publishes the SQ tail.
   *
   * @param startPs when user space starts writing
   * @param perSqePs user-space time per SQE; SQE i is stamped {@code startPs + (i + 1) * perSqePs}
   * @return SQEs written (fewer if the SQ ring fills)
   */
  public int prepMoreIos(int maxIos, long startPs, long perSqePs) {
    int n = 0;
    while (n < maxIos && !sq.full()) {
      long stampPs = startPs + (n + 1) * perSqePs;
      sq.tryClaim(initIo(stampPs));
      inFlightClock.stamped(stampPs);
      n++;
    }
    if (n > 0) {
      sq.publish();
    }
    return n;
  }

  /**
   * The head of a pass at {@code t} on {@code cpu}: {@code prep_more_ios_uring} writes and
   * publishes {@link #toPrep()} SQEs, each charged at its user-space price, then {@link
   * #beginPass}.
   *
   * @return when user space is done with it
   */
  public long prepMoreIosUring(long t, Charger charger, int cpu) {
    int toPrep = toPrep();
    int n =
        toPrep > 0
            ? prepMoreIos(toPrep, t, charger.costs().callPs(KernelFn.PREP_MORE_IOS_URING))
            : 0;
    t += charger.charge(cpu, CpuTime.SUBMIT, KernelFn.PREP_MORE_IOS_URING, n);
    beginPass(n);
    return t;
  }

  /** After the prep of a pass: {@code s->inflight += prepped; to_submit = prepped}. */
  public void beginPass(int newlyPrepped) {
    if (prepped == 0) {
      prepped = newlyPrepped;
    }
    inflight += prepped;
    toSubmit = prepped;
  }

  /** The {@code submit:} label: how to call io_uring_enter. */
  public EnterArgs enterArgs() {
    int toWait =
        toSubmit > 0 && inflight + toSubmit <= depth
            ? 0
            : Math.min(inflight + toSubmit, batchComplete);
    return new EnterArgs(toSubmit, toWait, toWait > 0);
  }

  /**
   * {@code reap_events_uring}: takes every CQE in the CQ ring.
   *
   * @param startPs when user space starts reaping
   * @param perCqePs user-space time per CQE; CQE i is reaped at {@code startPs + (i + 1) *
   *     perCqePs}
   * @return CQEs reaped, or -1 after a CQE whose result is not the block size (t/io_uring prints
   *     {@code io: unexpected ret=} and stops)
   */
  public int reap(long startPs, long perCqePs, LatencyRecorder latency) {
    int reaped = 0;
    for (Cqe cqe = cq.peek(0); cqe != null; cqe = cq.peek(reaped)) {
      // -N1: a nop has no file, and its result is not looked at
      if (!nop && !reapRead(cqe)) {
        return -1;
      }
      reaped++;
      long reapedAtPs = startPs + reaped * perCqePs;
      latency.record(reapedAtPs - cqe.issuedAtPs());
      inFlightClock.reaped(cqe.issuedAtPs(), reapedAtPs);
    }
    cq.advance(reaped);
    inflight -= reaped;
    return reaped;
  }

  /**
   * {@link #reap} after an io_uring_enter returned to user space at {@code t} on {@code cpu}: each
   * CQE charged at {@code reap_events_uring}'s user-space price, and at fio's own where the profile
   * prices it (a profile whose load is fio: its engine's work per I/O, beyond t/io_uring's loop).
   * {@link #entered(int)} then takes what it reaped.
   *
   * @return when user space is done with it
   */
  public long reapEventsUring(long t, Charger charger, int cpu, LatencyRecorder latency) {
    thisReap = reap(t, charger.costs().callPs(KernelFn.REAP_EVENTS_URING), latency);
    t += charger.charge(cpu, CpuTime.SUBMIT, KernelFn.REAP_EVENTS_URING, Math.max(thisReap, 0));
    if (charger.costs().step(KernelFn.FIO_USER).ps() > 0) {
      t += charger.charge(cpu, CpuTime.SUBMIT, KernelFn.FIO_USER, Math.max(thisReap, 0));
    }
    return t;
  }

  /**
   * A read's CQE: its file's count, its result.
   *
   * @return false if the result is not the block size: t/io_uring returns before it moves the CQ
   *     head or inflight, and the CQEs stay in the ring
   */
  private boolean reapRead(Cqe cqe) {
    files.reaped((int) (cqe.userData() & 0xffffffffL));
    if (cqe.res() == bs) {
      return true;
    }
    fatal.add("io: unexpected ret=" + cqe.res());
    if (polled && cqe.res() == -EOPNOTSUPP) {
      fatal.add("Your filesystem/driver/kernel doesn't support polled IO");
    }
    return false;
  }

  /**
   * Whether, back from an io_uring_enter that submitted nothing with no CQE to reap, the loop goes
   * straight back into io_uring_enter with nothing to submit ({@code goto submit}: {@code ret == 0}
   * with requests in flight).
   */
  public boolean entersAgainEmpty(int ret, int cqes) {
    return ret == 0 && cqes == 0 && inflight > 0;
  }

  /**
   * {@code n} more of those empty turns: each an io_uring_enter call that submitted and reaped
   * nothing ({@link #entered} of 0 with 0 reaped, {@code calls++}).
   */
  public void enteredEmpty(long n) {
    if (n < 0 || inflight == 0) {
      throw new IllegalStateException(n + " empty turns with " + inflight + " in flight");
    }
    calls += n;
    toSubmit = 0;
  }

  /** {@link #entered(int, int)} with what {@link #reapEventsUring} reaped. */
  public Next entered(int ret) {
    return entered(ret, thisReap);
  }

  /**
   * After io_uring_enter returned {@code ret} and the reap took {@code thisReap} CQEs (or -1):
   * t/io_uring's rules.
   */
  public Next entered(int ret, int thisReap) {
    calls++;
    if (thisReap < 0) {
      finish = true;
      thisReap = 0;
    }
    reaps += thisReap;
    if (ret >= 0) {
      if (ret == 0) {
        toSubmit = 0;
        return inflight > 0 ? Next.ENTER : endOfPass();
      }
      if (ret < toSubmit) {
        int diff = toSubmit - ret;
        done += ret;
        prepped -= diff;
        toSubmit = prepped;
        return Next.ENTER;
      }
      done += ret;
      prepped = 0;
      return endOfPass();
    }
    if (ret == -EAGAIN) {
      if (finish) {
        return Next.EXIT;
      }
      if (thisReap == 0) {
        toSubmit = 0;
      }
      return Next.ENTER;
    }
    fatal.add("io_submit: error " + (-ret));
    return Next.EXIT;
  }

  /**
   * The thread blocks for good in io_cqring_wait, which no completion will end.
   *
   * @param minComplete the {@code min_complete} it asked for
   * @param posted the CQEs there are, all that will come
   * @param accepted SQEs the kernel took in the io_uring_enter that never returns: t/io_uring's
   *     {@code done} never counts them
   */
  public void hangInCqringWait(int minComplete, long posted, int accepted) {
    hangIn(
        "hangs in io_cqring_wait: io_uring_enter(to_submit, min_complete="
            + minComplete
            + ") with "
            + posted
            + " completions posted and none to come; t/io_uring would sleep here until killed");
    acceptedInHungCall = accepted;
  }

  /** The thread blocks for good in a syscall no completion will end ({@code line} says which). */
  public void hangIn(String line) {
    fatal.add(line);
    finish = true;
    hung = true;
  }

  /** Whether the thread hangs in a call that never returns: one call more than {@link #calls}. */
  public boolean hung() {
    return hung;
  }

  /** SQEs the kernel took in a call that never returned (a hang), so {@code done} lacks them. */
  public int acceptedInHungCall() {
    return acceptedInHungCall;
  }

  /**
   * The head of a pass of {@code submitter_sync_fn} at {@code t}: the loop's own work in user space
   * ({@link KernelFn#SUBMITTER_SYNC_FN}), charged, then the read ({@link #syncRead}), stamped when
   * {@code preadv2} is called.
   */
  public Sqe submitterSyncFn(long t, Charger charger, int cpu) {
    return syncRead(t + charger.charge(cpu, CpuTime.SUBMIT, KernelFn.SUBMITTER_SYNC_FN, 1));
  }

  /** {@code -S1} before a {@code preadv2}: file and offset, {@code inflight++}, {@code calls++}. */
  public Sqe syncRead(long stampPs) {
    inflight++;
    calls++;
    inFlightClock.stamped(stampPs);
    return initIo(stampPs);
  }

  /**
   * {@code preadv2} returned {@code ret} at {@code atPs}; t/io_uring stops on anything but a whole
   * block (perror on an error).
   *
   * @return whether the loop goes on
   */
  public boolean syncReturned(Sqe read, int ret, long atPs, LatencyRecorder latency) {
    if (ret != bs) {
      fatal.add("preadv2: error " + ret);
      return false;
    }
    done++;
    inflight--;
    files.reaped((int) read.userData());
    latency.record(atPs - read.issuedAtPs());
    inFlightClock.reaped(read.issuedAtPs(), atPs);
    return !finish;
  }

  /**
   * The head of a pass of {@code submitter_aio_fn} ({@code -a1}): the iocbs {@code io_submit}
   * takes, and when user space calls it.
   */
  public record AioPass(List<Sqe> iocbs, long atPs) {}

  /**
   * The head of a pass of {@code submitter_aio_fn} at {@code t}: {@code prep_more_ios_aio} of as
   * many iocbs as the depth has room for ({@link #toPrep}), charged ({@link
   * KernelFn#PREP_MORE_IOS_AIO} each); then the pass begins ({@link #beginPass}) and its {@code
   * to_wait} is set ({@link #aioToWait}).
   */
  public AioPass prepMoreIosAio(long t, Charger charger, int cpu) {
    int toPrep = toPrep();
    List<Sqe> iocbs = List.of();
    if (toPrep > 0) {
      iocbs = prepAio(toPrep, t, charger.costs().callPs(KernelFn.PREP_MORE_IOS_AIO));
      t += charger.charge(cpu, CpuTime.SUBMIT, KernelFn.PREP_MORE_IOS_AIO, iocbs.size());
    }
    beginPass(toPrep > 0 ? iocbs.size() : 0);
    aioToWait = enterArgs().toWait();
    return new AioPass(iocbs, t);
  }

  /**
   * {@code reap_events_aio} of the events {@code io_getevents} returned, from {@code t}, charged
   * ({@link KernelFn#REAP_EVENTS_AIO} each); each counts against the pass's {@code to_wait}.
   *
   * @return when it is done, or -1 after an event whose result is not the block size: the model
   *     ends the thread there, as the ring's loop does. t/io_uring's aio loop does not: it counts
   *     the -1 into {@code reaps} and {@code to_wait} and calls {@code io_getevents} again for one
   *     more event than are in flight, where it would wait for ever
   */
  public long reapEventsAio(
      List<IoEvent> events, long t, Charger charger, int cpu, LatencyRecorder latency) {
    int r = aioReap(events, t, charger.costs().callPs(KernelFn.REAP_EVENTS_AIO), latency);
    if (r < 0) {
      return -1;
    }
    aioToWait -= r;
    return t + charger.charge(cpu, CpuTime.SUBMIT, KernelFn.REAP_EVENTS_AIO, r);
  }

  /**
   * {@code submitter_aio_fn} back in user space after {@code io_submit} or {@code io_getevents}
   * (its events reaped): {@code io_getevents} again while {@code to_wait} is left ({@link
   * Next#ENTER}, {@code s->calls++}), else the next pass, or the end once it is told to finish.
   */
  public Next aioReturned() {
    if (aioToWait > 0) {
      aioCall(false);
      return Next.ENTER;
    }
    return finish ? Next.EXIT : Next.PASS;
  }

  /**
   * The events {@code submitter_aio_fn} still waits for in this pass: {@code io_getevents} is
   * called with {@code min_nr = nr = to_wait} while there are some.
   */
  public int aioToWait() {
    return aioToWait;
  }

  /** {@code prep_more_ios_aio} ({@code -a1}): {@code maxIos} iocbs, stamped as SQEs are. */
  public List<Sqe> prepAio(int maxIos, long startPs, long perIocbPs) {
    List<Sqe> iocbs = new ArrayList<>();
    for (int n = 1; n <= maxIos; n++) {
      iocbs.add(initIo(startPs + n * perIocbPs));
      inFlightClock.stamped(startPs + n * perIocbPs);
    }
    return iocbs;
  }

  /** {@code s->calls++}: after io_submit, which took the batch, or before io_getevents. */
  public void aioCall(boolean submit) {
    calls++;
    prepped = submit ? 0 : prepped;
  }

  /**
   * {@code reap_events_aio} of what {@code io_getevents} returned, from {@code startPs} at {@code
   * perPs} each: per event its file, its result, inflight, done and reaps.
   *
   * @return events reaped, or -1 after one whose result is not the block size
   */
  public int aioReap(List<IoEvent> events, long startPs, long perPs, LatencyRecorder latency) {
    int reaped = 0;
    for (IoEvent ev : events) {
      files.reaped((int) ev.data());
      if (ev.res() != bs) {
        fatal.add("io: unexpected ret=" + ev.res());
        finish = true;
        return -1;
      }
      reaped++;
      latency.record(startPs + reaped * perPs - ev.issuedAtPs());
      inFlightClock.reaped(ev.issuedAtPs(), startPs + reaped * perPs);
    }
    inflight -= reaped;
    done += reaped;
    reaps += reaped;
    return reaped;
  }

  /** Sets {@code s->finish}, as t/io_uring's main thread does when the runtime is over. */
  public void finish() {
    finish = true;
  }

  private Next endOfPass() {
    return finish ? Next.EXIT : Next.PASS;
  }

  private Sqe initIo(long issuedAtPs) {
    if (nop) {
      // t/io_uring of 2021 (fio 2ac00585, 0862f718): sqe->opcode = IORING_OP_NOP, nothing else
      return new Sqe(Sqe.IORING_OP_NOP, 0, 0, 0, 0, 0, issuedAtPs);
    }
    SubmitterFile f = files.next();
    int opcode =
        fixedBufs ? Sqe.IORING_OP_READ_FIXED : vectored ? Sqe.IORING_OP_READV : Sqe.IORING_OP_READ;
    return new Sqe(
        opcode,
        registerFiles ? Sqe.IOSQE_FIXED_FILE : 0,
        f.fileno,
        files.offset(f),
        bs,
        f.fileno,
        issuedAtPs);
  }

  /** I/Os stamped and not yet reaped, time-weighted mean over [0, {@code endPs}]. */
  public double meanInFlight(long endPs) {
    return inFlightClock.mean(endPs);
  }

  /** I/Os stamped and not yet reaped at the end: they weigh in the mean but have no latency. */
  public long inFlightAtEnd() {
    return inFlightClock.out();
  }

  public int inflight() {
    return inflight;
  }

  public int prepped() {
    return prepped;
  }

  public long done() {
    return done;
  }

  public long calls() {
    return calls;
  }

  public long reaps() {
    return reaps;
  }

  public boolean finishing() {
    return finish;
  }

  /** The lines t/io_uring printed before the thread stopped on an error; empty if none. */
  public List<String> fatal() {
    return List.copyOf(fatal);
  }

  public int depth() {
    return depth;
  }
}

package blksim.actors.cpu;

import blksim.actors.bioset.BioSetCache;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.actors.hctx.HwQueue;
import blksim.actors.nullblk.NullBlkDevice;
import blksim.actors.tiouring.MainThread;
import blksim.queues.bio.Bio;
import blksim.queues.blkmq.Request;
import blksim.queues.books.Books;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.PathCosts;
import blksim.queues.uring.IoKiocb;
import blksim.queues.uring.IoRingCtx;
import blksim.queues.uring.Submitter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One CPU running one t/io_uring submitter thread: user space ({@link Submitter}), the kernel side
 * of its ring ({@link IoRingCtx}, fs/io_uring.c) and the raw block device file (block/fops.c).
 *
 * <p>The CPU is a non-preemptive server: its execution travels with the messages it sends. A call
 * into the bioset, a hardware queue or the device is a message carrying the time at which the CPU
 * makes it; the callee charges its own work to this CPU and replies when it returns. One
 * io_uring_enter is therefore a chain: submit SQEs, allocate bios ({@link BioSetCache}), submit
 * them ({@link HwQueue}), then, for IORING_ENTER_GETEVENTS on an IOPOLL ring, {@code
 * io_iopoll_check}: poll the hardware queue, end the bios it found, put them, post CQEs, and poll
 * again until {@code min_complete} events were found. The syscall returns with a {@link Resume} to
 * itself, where user space reaps and t/io_uring's loop decides what comes next.
 *
 * <p>Interrupts (null_blk's timers) come as messages. One that arrives while a call of the thread
 * is out waits for the next step boundary: when the reply comes back, the interrupt runs first and
 * the thread goes on where it was when the interrupt is over. A sleeping thread is woken by the
 * task_work an interrupt queues; while it sleeps its CPU is idle.
 */
public final class Cpu extends AbstractComponent<Cpu.Command> {

  /** Everything a CPU understands. */
  public sealed interface Command extends SimMessage
      permits Start,
          BiosAllocated,
          BiosQueued,
          Polled,
          BiosPut,
          ReadCounters,
          Finish,
          Resume,
          TimerFired,
          IrqEnded,
          CompletedElsewhere,
          IoWqEnqueue,
          WantsUringLock,
          UringUnlocked {}

  /** Starts the submitter thread. */
  public record Start(long atPs) implements Command {}

  /** The bioset returned the bios asked for, one per request being submitted. */
  public record BiosAllocated(long atPs, List<Bio> bios) implements Command {}

  /**
   * The hardware queue took the bios and the driver queued {@code count} requests; {@code ended}
   * are the bios of requests the driver completed at once (interrupt-driven queues with irqmode 0
   * or 1), {@code wouldBlock} those that found no tag and ended with {@code BLK_STS_AGAIN}.
   */
  public record BiosQueued(long atPs, int count, List<Bio> ended, List<Bio> wouldBlock)
      implements Command {}

  /** {@code io_queue_async_work}: requests of {@code owner}'s ring punted to its io-wq worker. */
  public record IoWqEnqueue(long atPs, List<IoKiocb> reqs, SimRef<Command> owner)
      implements Command {}

  /**
   * The io-wq worker issued {@code req} and takes its ring's {@code uring_lock} to put it on the
   * IOPOLL list ({@code io_iopoll_req_issued} with {@code IO_URING_F_UNLOCKED}).
   */
  public record WantsUringLock(long atPs, IoKiocb req, SimRef<Command> worker) implements Command {}

  /** The worker got the ring's {@code uring_lock} at {@code atPs} and added its request. */
  public record UringUnlocked(long atPs) implements Command {}

  /** A poll of a hardware queue returned; {@code ended} are the bios of the requests it ended. */
  public record Polled(long atPs, List<Bio> ended) implements Command {}

  /** The bioset took back the bios put. */
  public record BiosPut(long atPs) implements Command {}

  /** t/io_uring's main thread reads the submitter's counters. */
  public record ReadCounters(long atPs, SimRef<MainThread.Command> replyTo) implements Command {}

  /** t/io_uring's main thread sets {@code s->finish}. */
  public record Finish(long atPs) implements Command {}

  /** io_uring_enter returns to user space. */
  record Resume(long atPs) implements Command {}

  /**
   * A null_blk hrtimer armed on this CPU (irqmode=2) expired: a hard interrupt here.
   *
   * @param hctx this request's hardware queue in the flat list of every device's queues
   * @param hctxIndex its index within its device
   */
  public record TimerFired(
      long atPs,
      SimRef<NullBlkDevice.Command> device,
      SimRef<HwQueue.Command> hctxRef,
      int hctx,
      int hctxIndex,
      Request rq)
      implements Command {}

  /**
   * Another CPU's poll ended requests of this CPU's ring: its {@code io_complete_rw_iopoll} wrote
   * their results and {@code iopoll_completed}; the next io_do_iopoll here finds them done.
   */
  public record CompletedElsewhere(long atPs, List<Completion> completions) implements Command {}

  /** A request and the result it completed with. */
  public record Completion(IoKiocb req, int res) {}

  /** The hardware queue ended the requests of expired timers; these are their bios. */
  public record IrqEnded(long atPs, List<Bio> ended) implements Command {}

  /**
   * The components a submitter's CPU talks to.
   *
   * @param hctxs every hardware queue of every device, device after device
   * @param peers every CPU that runs a submitter, by number
   * @param worker the CPU of the thread's io-wq worker, or null if it needs none
   */
  public record Links(
      SimRef<Command> self,
      SimRef<BioSetCache.Command> bioset,
      SimRef<MainThread.Command> main,
      List<SimRef<HwQueue.Command>> hctxs,
      Map<Integer, SimRef<Command>> peers,
      SimRef<Command> worker) {}

  private final CpuCore core;
  private final SubmitterPath thread;
  private final IrqPath irq;
  private final ArrayDeque<TimerFired> pendingIrqs = new ArrayDeque<>();
  private Command stashed;
  private boolean inIrq;

  /**
   * @param index the CPU's number
   */
  public Cpu(
      int index, Links links, Submitter sub, IoRingCtx ring, CpuConfig cfg, PathCosts costs) {
    super(links.self().name());
    this.core = new CpuCore(index, links, sub, ring, cfg, costs);
    this.thread = new SubmitterPath(core);
    this.irq = new IrqPath(core, thread);
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(Start.class, (m, out) -> thread.pass(m.atPs(), out))
        .on(BiosAllocated.class, this::onThreadReply)
        .on(BiosQueued.class, this::onThreadReply)
        .on(Polled.class, this::onThreadReply)
        .on(Resume.class, this::onThreadReply)
        .on(BiosPut.class, this::onBiosPut)
        .on(TimerFired.class, this::onTimerFired)
        .on(IrqEnded.class, (m, out) -> irqReturned(irq.onIrqEnded(m, out), out))
        .on(CompletedElsewhere.class, this::onCompletedElsewhere)
        .on(WantsUringLock.class, (m, out) -> thread.onWantsUringLock(m, out))
        .on(ReadCounters.class, this::onReadCounters)
        .on(Finish.class, (m, out) -> core.sub.finish())
        .build();
  }

  /** A step boundary of the thread: pending interrupts run first. */
  private void onThreadReply(Command m, Outbox out) {
    if (!pendingIrqs.isEmpty()) {
      stashed = m;
      inIrq = true;
      irqReturned(irq.start(m.atPs(), drainPending(), out), out);
      return;
    }
    thread.handle(m, out);
  }

  private void onBiosPut(BiosPut m, Outbox out) {
    if (inIrq) {
      irqReturned(irq.onBiosPut(m.atPs(), out), out);
    } else {
      onThreadReply(m, out);
    }
  }

  private void onTimerFired(TimerFired m, Outbox out) {
    pendingIrqs.add(m);
    if (!inIrq && !thread.inFlight() && stashed == null) {
      inIrq = true;
      irqReturned(irq.start(Math.max(m.atPs(), thread.freeAtPs()), drainPending(), out), out);
    }
  }

  /** The interrupt path returned {@code endPs}, or -1 while a call of it is out. */
  private void irqReturned(long endPs, Outbox out) {
    if (endPs < 0) {
      return;
    }
    if (!pendingIrqs.isEmpty()) {
      irqReturned(irq.more(endPs, drainPending(), out), out);
      return;
    }
    inIrq = false;
    if (thread.woken()) {
      thread.wake(endPs, out);
    } else if (stashed != null) {
      Command m = withTime(stashed, endPs);
      stashed = null;
      thread.handle(m, out);
    }
  }

  private List<TimerFired> drainPending() {
    List<TimerFired> all = new ArrayList<>(pendingIrqs);
    pendingIrqs.clear();
    return all;
  }

  /** The same reply, handled later: after the interrupt that came first. */
  private static Command withTime(Command m, long t) {
    if (m instanceof BiosAllocated b) {
      return new BiosAllocated(t, b.bios());
    }
    if (m instanceof BiosQueued b) {
      return new BiosQueued(t, b.count(), b.ended(), b.wouldBlock());
    }
    if (m instanceof Polled p) {
      return new Polled(t, p.ended());
    }
    if (m instanceof BiosPut) {
      return new BiosPut(t);
    }
    if (m instanceof Resume) {
      return new Resume(t);
    }
    throw new IllegalStateException("not a reply to the thread: " + m);
  }

  private void onCompletedElsewhere(CompletedElsewhere m, Outbox out) {
    for (Completion done : m.completions()) {
      core.ring.completeRwIopollElsewhere(done.req(), done.res());
    }
  }

  private void onReadCounters(ReadCounters m, Outbox out) {
    Submitter sub = core.sub;
    out.send(
        m.replyTo(),
        new MainThread.Counters(
            m.atPs(), core.cfg.submitter(), sub.done(), sub.calls(), sub.reaps()));
  }

  public int index() {
    return core.index;
  }

  /** When the submitter thread ended, in virtual time. */
  public long exitedAtPs() {
    return thread.exitedAtPs();
  }

  /**
   * When the thread's last work on this CPU ended (it went to sleep, or, after it ended, the last
   * poll that reaped its ring): later than any message when that poll found nothing.
   */
  public long freeAtPs() {
    return thread.freeAtPs();
  }

  /** The t/io_uring thread this CPU runs. */
  public int submitterIndex() {
    return core.cfg.submitter();
  }

  public Submitter submitter() {
    return core.sub;
  }

  public IoRingCtx ring() {
    return core.ring;
  }

  /** Submit-to-reap latency of every I/O reaped, in ns. */
  public Histogram latencyNs() {
    return core.latencyNs;
  }

  public CostLedger ledger() {
    return core.charger.ledger();
  }

  /** Checks the submitter and its ring: every I/O submitted completed exactly once. */
  public void audit(Books books) {
    books.check(
        thread.done(),
        name() + ": the submitter thread never ended, or left requests in the kernel");
    books.check(pendingIrqs.isEmpty() && !inIrq, name() + ": an interrupt was left unhandled");
    core.ring.audit(books, name());
    books.checkEqual(
        core.ring.submitted(),
        core.sub.done() + core.sub.acceptedInHungCall(),
        name() + ": SQEs the kernel accepted vs t/io_uring's done");
    books.checkEqual(
        core.ring.completed() - core.ring.droppedAtExit(),
        core.sub.reaps() + core.ring.cqEvents(),
        name() + ": CQEs posted vs reaped");
  }
}

package blksim.actors.cpu;

import blksim.actors.bioset.BioSetCache;
import blksim.actors.block.BlockDevice;
import blksim.actors.dm.DmDevice;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.actors.nullblk.NullBlkDevice;
import blksim.queues.books.Books;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.PathCosts;
import blksim.queues.uring.IoKiocb;
import blksim.queues.uring.IoRingCtx;
import blksim.queues.uring.Submitter;
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
          FromBioSet,
          FromBlock,
          ReadCounters,
          Finish,
          Resume,
          Resched,
          FromDevice,
          CompletedElsewhere,
          WantsUringLock,
          WorkerWants,
          WorkerYields,
          WorkerPreempted,
          Tick {}

  /** Starts the submitter thread. */
  public record Start(long atPs) implements Command {}

  /**
   * The scheduler tick's timer fires on this CPU ({@code interference.tick}); the next one is
   * {@code periodPs} later, up to the runtime's end ({@code untilPs}) and while the thread runs. A
   * tick at or after {@code balanceAtPs} also raises SCHED_SOFTIRQ, and the next balance is {@code
   * balanceEveryPs} later ({@code balanceEveryPs} 0: no load balance). A tick at or after {@code
   * vmstatAtPs} also fires vmstat_update's timer, whose kworker runs as the interrupt returns; the
   * next is {@code vmstatEveryPs} later (0: the CPU's VM counters do not change, no kworker).
   */
  public record Tick(
      long atPs,
      long periodPs,
      long untilPs,
      long balanceAtPs,
      long balanceEveryPs,
      long vmstatAtPs,
      long vmstatEveryPs)
      implements Command {
    Tick next(boolean balanced, boolean vmstat) {
      long balance = balanced ? balanceAtPs + balanceEveryPs : balanceAtPs;
      long kworker = vmstat ? vmstatAtPs + vmstatEveryPs : vmstatAtPs;
      return new Tick(
          atPs + periodPs, periodPs, untilPs, balance, balanceEveryPs, kworker, vmstatEveryPs);
    }
  }

  /** A bioset's answer, through this CPU's adapter. */
  public record FromBioSet(BioSetCache.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /** A block device's answer, through this CPU's adapter. */
  public record FromBlock(BlockDevice.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /**
   * The io-wq worker issued {@code req} and takes its ring's {@code uring_lock} to put it on the
   * IOPOLL list ({@code io_iopoll_req_issued} with {@code IO_URING_F_UNLOCKED}).
   */
  public record WantsUringLock(long atPs, IoKiocb req, SimRef<IoWqWorker.Command> worker)
      implements Command {}

  /**
   * The thread's io-wq worker, which shares this CPU (it has none of its own), is runnable, woken
   * for work or for a tag: it runs where the thread schedules, or when the CPU is idle. The CPU
   * answers with {@link IoWqWorker.CpuGranted}.
   */
  public record WorkerWants(long atPs) implements Command {}

  /** The worker that had this CPU sleeps again at {@code atPs}: the CPU is the thread's. */
  public record WorkerYields(long atPs) implements Command {}

  /**
   * The tick ended the slice of the worker that had this CPU: at its next {@code cond_resched} it
   * gives the CPU back at {@code atPs}, still runnable. The thread's own slice then ends at the
   * tick at {@code againFromPs}; from there the worker runs where the thread schedules.
   */
  public record WorkerPreempted(long atPs, long againFromPs) implements Command {}

  /**
   * t/io_uring's main thread reads the submitter's counters.
   *
   * @param latency whether to send the latencies reaped since the last read too (for an interval
   *     log)
   */
  public record ReadCounters(long atPs, SimRef<Report> replyTo, boolean latency)
      implements Command {}

  /** What a CPU tells t/io_uring's main thread; the main thread receives it through an adapter. */
  public sealed interface Report extends SimMessage permits Counters, ThreadExited {}

  /**
   * A submitter's counters, read at {@code atPs}.
   *
   * @param submitter the submitter's index
   * @param intervalLatencyNs the latencies reaped since the last read, when asked for; else null
   */
  public record Counters(
      long atPs, int submitter, long done, long calls, long reaps, Histogram intervalLatencyNs)
      implements Report {}

  /**
   * A submitter thread ended on an error after printing {@code lines}; t/io_uring then sets the
   * global {@code finish}, and its main thread stops without printing another status line. A thread
   * that {@code hung} in a call that never returns ended nothing: the main thread goes on printing
   * its status lines to the runtime, then "Exiting on timeout", as t/io_uring's does before it
   * blocks joining the thread; {@code lines} say why blksim's thread stops.
   */
  public record ThreadExited(long atPs, int submitter, List<String> lines, boolean hung)
      implements Report {}

  /** t/io_uring's main thread sets {@code s->finish}. */
  public record Finish(long atPs) implements Command {}

  /** io_uring_enter returns to user space. */
  record Resume(long atPs) implements Command {} // its time is the syscall's end

  /** The thread reaches {@code io_iopoll_check}'s {@code mutex_lock}: a might_sleep. */
  record Resched(long atPs) implements Command {}

  /** An interrupt a device raised on this CPU, through this CPU's adapter. */
  public record FromDevice(NullBlkDevice.Interrupt irq) implements Command {
    @Override
    public long atPs() {
      return irq.atPs();
    }
  }

  /**
   * Another CPU's poll ended requests of this CPU's ring (its io_complete_rw_iopoll wrote their
   * results; the next io_do_iopoll here finds them done), or, with none, this thread's sync read.
   */
  public record CompletedElsewhere(long atPs, List<Completion> completions) implements Command {}

  /** A request and the result it completed with. */
  public record Completion(IoKiocb req, int res) {}

  /**
   * The components a submitter's CPU talks to.
   *
   * @param peers every CPU that runs a submitter, by number
   * @param worker the CPU of the thread's io-wq worker, or null if it needs none
   * @param dms the DM devices whose clones an interrupt here may end, by name
   */
  public record Links(
      SimRef<Command> self,
      SimRef<BioSetCache.Command> bioset,
      SimRef<Report> main,
      Map<Integer, SimRef<Command>> peers,
      SimRef<IoWqWorker.Command> worker,
      Map<String, SimRef<DmDevice.Command>> dms) {}

  private final CpuCore core;

  private final SubmitterPath thread;
  private final ThreadLoop run;
  private final CpuSchedule schedule;

  /**
   * @param index the CPU's number
   */
  public Cpu(
      int index, Links links, Submitter sub, IoRingCtx ring, CpuConfig cfg, PathCosts costs) {
    super(links.self().name(), Command.class);
    this.core = new CpuCore(index, links, sub, ring, cfg, costs);
    this.thread = new SubmitterPath(core);
    this.run =
        cfg.syncIo()
            ? new SyncReadPath(core, thread)
            : cfg.aio() ? new AioPath(core, thread) : thread;
    this.schedule = new CpuSchedule(core, thread, run, new IrqPath(core, thread));
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(Start.class, this::onStart)
        .on(FromBioSet.class, (m, out) -> schedule.onBioSetReply(m.reply(), out))
        .on(FromBlock.class, (m, out) -> schedule.onBlockReply(m.reply(), out))
        .on(Resume.class, schedule::onThreadReply)
        .on(Resched.class, schedule::onThreadReply)
        .on(FromDevice.class, (m, out) -> schedule.onInterrupt(m.irq(), out))
        .on(Tick.class, schedule::onTick)
        .on(CompletedElsewhere.class, this::onCompletedElsewhere)
        .on(WantsUringLock.class, this::onWantsUringLock)
        .on(WorkerWants.class, schedule::onWorkerWants)
        .on(WorkerYields.class, (m, out) -> schedule.onWorkerYields(m.atPs(), out))
        .on(WorkerPreempted.class, schedule::onWorkerPreempted)
        .on(ReadCounters.class, this::onReadCounters)
        .on(Finish.class, (m, out) -> core.sub.finish())
        .build();
  }

  private void onStart(Start m, Outbox out) {
    schedule.pass(m.atPs(), out);
  }

  private void onWantsUringLock(WantsUringLock m, Outbox out) {
    thread.onWantsUringLock(m, schedule.lent(), out);
    schedule.idleSoftirq(m.atPs(), out);
  }

  private void onCompletedElsewhere(CompletedElsewhere m, Outbox out) {
    List<Completion> mine = core.forwardForeign(m, out);
    if (mine == null) {
      return;
    }
    if (!core.cfg.iopoll()) {
      // another CPU's interrupt ended them: io_complete_rw queued task_work, which wakes the thread
      for (Completion done : mine) {
        core.ring.completeRw(done.req(), done.res());
        thread.workerCompleted(done.req());
      }
      if (thread.exiting()) { // the ring's teardown takes what the task_work would have posted
        core.ring.dropTaskWorkAtExit();
        return;
      }
      if (thread.loop().wakeIfSleeping()) {
        schedule.wake(m.atPs(), out);
      }
      return;
    }
    for (Completion done : mine) {
      core.ring.completeRwIopollElsewhere(done.req(), done.res());
    }
  }

  private void onReadCounters(ReadCounters m, Outbox out) {
    out.send(m.replyTo(), core.counters(m));
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
    books.drained(
        thread.done(),
        name() + ": the submitter thread never ended, or left requests in the kernel");
    books.drained(
        schedule.idle(),
        name() + ": an interrupt was left unhandled (" + schedule.leftOver() + ")");
    run.audit(books, name());
  }

  /** Reads the kernel took: SQEs, iocbs or preadv2 calls. */
  public long accepted() {
    return core.accepted();
  }

  /** Reads the kernel completed. */
  public long completed() {
    return core.completed();
  }
}

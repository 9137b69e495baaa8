package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.md.MappedDeviceActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.PathCosts;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.kernel.sched.TickSched;
import blksim.queues.tiouring.Submitter;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One CPU running t/io_uring submitter threads ({@link Task}s, one or more), a thread's io-wq
 * worker ({@link IoWqWorker}, beside its thread or alone), or both: user space ({@link Submitter}),
 * the kernel side of their rings ({@link IoRingCtx}, fs/io_uring.c) and the raw block device file
 * (block/fops.c). Several threads on one CPU take turns as its run queue says ({@link CpuSchedule},
 * {@link blksim.queues.kernel.sched.CfsRq}).
 *
 * <p>The CPU is a non-preemptive server: its execution travels with the messages it sends. A call
 * into the bioset, a hardware queue or the device is a message carrying the time at which the CPU
 * makes it; the callee charges its own work to this CPU and replies when it returns. One
 * io_uring_enter is therefore a chain: submit SQEs, allocate bios ({@link BioSetActor}), submit
 * them ({@link HwCtxActor}), then, for IORING_ENTER_GETEVENTS on an IOPOLL ring, {@code
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
          SyncReadEnded,
          WantsUringLock,
          IoWqEnqueue,
          UringUnlocked,
          WorkerGranted,
          WorkerSliceEnds,
          WorkerWants,
          WorkerYields,
          WorkerPreempted,
          Tick {}

  /** Starts the submitter threads. */
  public record Start(long atPs) implements Command {}

  /** The scheduler tick's timer fires on this CPU ({@code interference.tick}). */
  public record Tick(TickSched timer) implements Command {
    @Override
    public long atPs() {
      return timer.atPs();
    }
  }

  /** The slot of the CPU's io-wq worker, in the adapters that carry its answers. */
  public static final int WORKER = -1;

  /** A bioset's answer to the task in {@code slot}, through its adapter. */
  public record FromBioSet(int slot, BioSetActor.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /** A block device's answer to the task in {@code slot}, through its adapter. */
  public record FromBlock(int slot, BlockDevice.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /**
   * The io-wq worker issued {@code req} and takes its ring's {@code uring_lock} to put it on the
   * IOPOLL list ({@code io_iopoll_req_issued} with {@code IO_URING_F_UNLOCKED}).
   */
  public record WantsUringLock(long atPs, IoKiocb req, SimRef<Command> worker) implements Command {}

  /**
   * {@code io_queue_async_work}: requests of {@code owner}'s ring punted to the io-wq worker this
   * CPU runs.
   */
  public record IoWqEnqueue(long atPs, List<IoKiocb> reqs, SimRef<Command> owner)
      implements Command {}

  /** The worker got the ring's {@code uring_lock} at {@code atPs} and added its request. */
  public record UringUnlocked(long atPs) implements Command {}

  /**
   * The worker sharing this CPU runs from {@code atPs}; {@code threadEnded}: the thread has exited,
   * and only the ring's teardown polls the tags free.
   */
  public record WorkerGranted(long atPs, boolean threadEnded) implements Command {}

  /** The tick at {@code atPs} ends the worker's slice, in which it spins ({@link WorkerSpin}). */
  public record WorkerSliceEnds(long atPs, long spin) implements Command {}

  /**
   * The thread's io-wq worker, which shares this CPU (it has none of its own), is runnable, woken
   * for work or for a tag: it runs where the thread schedules, or when the CPU is idle. The CPU
   * answers with {@link WorkerGranted}.
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
   * t/io_uring's main thread reads submitter {@code submitter}'s counters.
   *
   * @param latency whether to send the latencies reaped since the last read too (for an interval
   *     log)
   */
  public record ReadCounters(long atPs, int submitter, SimRef<Report> replyTo, boolean latency)
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

  /** t/io_uring's main thread sets {@code s->finish} of submitter {@code submitter}. */
  public record Finish(long atPs, int submitter) implements Command {}

  /** io_uring_enter of the task in {@code slot} returns to user space. */
  record Resume(long atPs, int slot) implements Command {} // its time is the syscall's end

  /** The task reaches {@code io_iopoll_check}'s {@code mutex_lock}: a might_sleep. */
  record Resched(long atPs, int slot) implements Command {}

  /** An interrupt a device raised on this CPU, through this CPU's adapter. */
  public record FromDevice(NullBlkActor.Interrupt irq) implements Command {
    @Override
    public long atPs() {
      return irq.atPs();
    }
  }

  /**
   * Another CPU's poll ended requests of this CPU's ring (its io_complete_rw_iopoll wrote their
   * results; the next io_do_iopoll here finds them done).
   */
  public record CompletedElsewhere(long atPs, List<Completion> completions) implements Command {}

  /**
   * Another CPU's poll ended the sync read of the task whose ring is {@code owner}: its
   * blkdev_bio_end_io_simple cleared bi_private and woke the task.
   */
  public record SyncReadEnded(long atPs, int owner) implements Command {}

  /** A request and the result it completed with. */
  public record Completion(IoKiocb req, int res) {}

  /**
   * The components a CPU talks to.
   *
   * @param peers the CPU of every ring, by its owner ({@link IoKiocb#owner})
   * @param dms the DM devices whose clones an interrupt here may end, by name
   */
  public record Links(
      SimRef<Command> self,
      SimRef<BioSetActor.Command> bioset,
      SimRef<Report> main,
      Map<Integer, SimRef<Command>> peers,
      Map<String, SimRef<MappedDeviceActor.Command>> dms) {}

  /**
   * A submitter thread of the CPU.
   *
   * @param slot its place on the CPU: 0, 1, ... in the order of the threads
   * @param worker the CPU that runs its io-wq worker (this one, or one of the worker's own), or
   *     null if it needs none
   */
  public record TaskLinks(
      int slot, Submitter sub, IoRingCtx ring, CpuConfig cfg, SimRef<Command> worker) {}

  private final int index;
  private final List<Task> tasks;

  /** What the CPU's tasks share, or null on a CPU that runs an io-wq worker only. */
  private final CpuCore core;

  private final CpuSchedule schedule;

  /** The io-wq worker this CPU runs, or null. */
  private final IoWqWorker worker;

  /**
   * @param index the CPU's number
   * @param threads its submitter threads, in slot order
   * @param onlineCpus the machine's CPUs, which scale the scheduler's tunables
   * @param tick the scheduler tick, which ends the slices of tasks that share the CPU
   * @param worker the io-wq worker the CPU runs (beside its threads, or alone), or null
   */
  public Cpu(
      int index,
      Links links,
      List<TaskLinks> threads,
      PathCosts costs,
      int onlineCpus,
      blksim.queues.kernel.sched.SchedTick tick,
      IoWqWorker worker) {
    super(links.self().name(), Command.class);
    this.index = index;
    this.worker = worker;
    List<Task> made = new java.util.ArrayList<>();
    CpuCore first = null;
    for (TaskLinks t : threads) {
      CpuCore c =
          first == null ? new CpuCore(index, links, t, costs) : new CpuCore(first, links, t);
      first = first == null ? c : first;
      made.add(new Task(c));
    }
    this.tasks = List.copyOf(made);
    this.core = first;
    this.schedule =
        first == null
            ? null
            : new CpuSchedule(
                core,
                tasks,
                new IrqPath(core, tasks),
                new blksim.queues.kernel.sched.Rq(onlineCpus, tick));
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(Start.class, (m, out) -> threads(m).pass(m.atPs(), out))
        .on(FromBioSet.class, this::onBioSetReply)
        .on(FromBlock.class, this::onBlockReply)
        .on(Resume.class, (m, out) -> threads(m).onThreadReply(m.slot(), m, out))
        .on(Resched.class, (m, out) -> threads(m).onThreadReply(m.slot(), m, out))
        .on(FromDevice.class, this::onInterrupt)
        .on(Tick.class, (m, out) -> threads(m).onTick(m, out))
        .on(CompletedElsewhere.class, this::onCompletedElsewhere)
        .on(SyncReadEnded.class, this::onSyncReadEnded)
        .on(WantsUringLock.class, this::onWantsUringLock)
        .on(IoWqEnqueue.class, (m, out) -> worker(m).onEnqueue(m, out))
        .on(UringUnlocked.class, (m, out) -> worker(m).onUringUnlocked(m, out))
        .on(WorkerGranted.class, (m, out) -> worker(m).onGranted(m, out))
        .on(WorkerSliceEnds.class, (m, out) -> worker(m).onSliceEnds(m, out))
        .on(WorkerWants.class, (m, out) -> threads(m).onWorkerWants(m, out))
        .on(WorkerYields.class, (m, out) -> threads(m).onWorkerYields(m.atPs(), out))
        .on(WorkerPreempted.class, (m, out) -> threads(m).onWorkerPreempted(m, out))
        .on(ReadCounters.class, this::onReadCounters)
        .on(Finish.class, (m, out) -> task(m.submitter()).core.sub.finish())
        .build();
  }

  /** The schedule of the CPU's threads, for {@code m}; a CPU that runs only a worker has none. */
  private CpuSchedule threads(Command m) {
    if (schedule == null) {
      throw new InvariantBroken(name() + " runs no thread, for " + m);
    }
    return schedule;
  }

  /** The io-wq worker the CPU runs, for {@code m}. */
  private IoWqWorker worker(Command m) {
    if (worker == null) {
      throw new InvariantBroken(name() + " runs no io-wq worker, for " + m);
    }
    return worker;
  }

  private void onBioSetReply(FromBioSet m, Outbox out) {
    if (m.slot() == WORKER) {
      worker(m).onBioSetReply(m.reply(), out);
    } else {
      threads(m).onBioSetReply(m.slot(), m.reply(), out);
    }
  }

  private void onBlockReply(FromBlock m, Outbox out) {
    if (m.slot() == WORKER) {
      worker(m).onBlockReply(m.reply(), out);
    } else {
      threads(m).onBlockReply(m.slot(), m.reply(), out);
    }
  }

  /**
   * An interrupt: on a CPU that runs its io-wq worker only, the worker's CPU takes it ({@link
   * WorkerInterrupts}); else the interrupt path of the CPU's tasks, whoever issued the request.
   */
  private void onInterrupt(FromDevice m, Outbox out) {
    if (schedule == null) {
      worker(m).onInterrupt(m.irq(), out);
    } else {
      schedule.onInterrupt(m.irq(), out);
    }
  }

  private void onWantsUringLock(WantsUringLock m, Outbox out) {
    threads(m); // a CPU that runs only a worker has no ring
    Task task = core.taskOf(m.req()).task; // the worker's thread: the ring it issued for
    long teardown = task.thread.onWantsUringLock(m, schedule.lent(), out);
    if (teardown >= 0) {
      schedule.teardownPoll(task, teardown, out);
    }
    schedule.idleSoftirq(m.atPs(), out);
  }

  private void onCompletedElsewhere(CompletedElsewhere m, Outbox out) {
    threads(m); // a CPU that runs only a worker has no ring
    List<Completion> mine = core.forwardForeign(m, out);
    if (mine == null) {
      return;
    }
    if (tasks.size() == 1 || mine.isEmpty()) {
      completedElsewhere(tasks.get(0), m.atPs(), mine, out);
      return;
    }
    Map<Integer, List<Completion>> byRing = new java.util.TreeMap<>();
    for (Completion done : mine) {
      byRing
          .computeIfAbsent(core.taskOf(done.req()).slot, k -> new java.util.ArrayList<>())
          .add(done);
    }
    byRing.forEach((slot, list) -> completedElsewhere(tasks.get(slot), m.atPs(), list, out));
  }

  private void onSyncReadEnded(SyncReadEnded m, Outbox out) {
    threads(m); // a CPU that runs only a worker has no ring
    completedElsewhere(core.taskOf(m.owner()).task, m.atPs(), List.of(), out);
  }

  private void completedElsewhere(Task task, long t, List<Completion> mine, Outbox out) {
    CpuCore c = task.core;
    if (!c.cfg.iopoll()) {
      // another CPU's interrupt ended them: io_complete_rw queued task_work, which wakes the thread
      for (Completion done : mine) {
        c.ring.completeRw(done.req(), done.res());
        task.thread.workerCompleted(done.req());
      }
      if (task.thread.exiting()) { // the ring's teardown takes what the task_work would have posted
        c.ring.dropTaskWorkAtExit();
        return;
      }
      if (task.thread.loop().wakeIfSleeping()) {
        schedule.wake(task, t, out);
      }
      return;
    }
    for (Completion done : mine) {
      c.ring.completeRwIopollElsewhere(done.req(), done.res());
    }
  }

  private void onReadCounters(ReadCounters m, Outbox out) {
    out.send(m.replyTo(), task(m.submitter()).core.counters(m));
  }

  private Task task(int submitter) {
    for (Task t : tasks) {
      if (t.submitterIndex() == submitter) {
        return t;
      }
    }
    throw new IllegalStateException(name() + " runs no submitter " + submitter);
  }

  public int index() {
    return index;
  }

  /** The io-wq worker this CPU runs, or null. */
  public IoWqWorker worker() {
    return worker;
  }

  /** The submitter threads this CPU runs, in slot order. */
  public List<Task> tasks() {
    return tasks;
  }

  /** The CPU's run queue: what its tasks ran and waited; null on a CPU that runs only a worker. */
  public blksim.queues.kernel.sched.CfsRq runQueue() {
    return schedule == null ? null : schedule.runQueue();
  }

  /** What the CPU's threads and their interrupts cost (its io-wq worker keeps its own). */
  public CostLedger ledger() {
    return core == null ? new CostLedger() : core.charger.ledger();
  }

  /** Checks the submitters and their rings: every I/O submitted completed exactly once. */
  public void audit(Books books) {
    if (schedule == null) {
      return; // its worker's books are the worker's
    }
    for (Task task : tasks) {
      books.drained(
          task.thread.done(),
          who(task) + ": the submitter thread never ended, or left requests in the kernel");
    }
    books.drained(
        schedule.idle(),
        name() + ": an interrupt was left unhandled (" + schedule.leftOver() + ")");
    for (Task task : tasks) {
      task.run.audit(books, who(task));
    }
  }

  private String who(Task task) {
    return tasks.size() == 1 ? name() : name() + " " + task.comm();
  }
}

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
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.io_uring.ForeignCompletions;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.io_uring.WorkerSpin;
import blksim.queues.kernel.sched.SchedCore;
import blksim.queues.kernel.sched.TickSched;
import blksim.queues.tiouring.Submitter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One CPU running t/io_uring submitter threads ({@link SubmitterThread}s, one or more), a thread's
 * io-wq worker ({@link IoWqWorker}, beside its thread or alone), or both: user space ({@link
 * Submitter}), the kernel side of their rings ({@link IoRingCtx}, fs/io_uring.c) and the raw block
 * device file (block/fops.c). Its tasks take turns, with its interrupts and ksoftirqd, as its
 * schedule says ({@link SchedCore}, {@link blksim.queues.kernel.sched.CfsRq}); the CPU sorts what
 * comes to it into the schedule's events.
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
          SliceEnds,
          DmSetupAt,
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

  /** The slot of the CPU's interrupt path, in the adapters that carry its answers. */
  public static final int IRQ = -1;

  /** A bioset's answer to the task in {@code slot} (or the interrupt path), through its adapter. */
  public record FromBioSet(int slot, BioSetActor.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /** A block device's answer to the task in {@code slot} (or the interrupt path). */
  public record FromBlock(int slot, BlockDevice.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /**
   * The io-wq worker in {@code slot} of the CPU {@code worker} issued {@code req} and takes its
   * ring's {@code uring_lock} to put it on the IOPOLL list ({@code io_iopoll_req_issued} with
   * {@code IO_URING_F_UNLOCKED}).
   */
  public record WantsUringLock(long atPs, IoKiocb req, SimRef<Command> worker, int slot)
      implements Command {}

  /**
   * {@code io_queue_async_work}: requests of ring {@code ring}, whose thread runs on {@code owner},
   * punted to that ring's io-wq worker, which this CPU runs.
   */
  public record IoWqEnqueue(long atPs, List<IoKiocb> reqs, SimRef<Command> owner, int ring)
      implements Command {}

  /**
   * The time of a command of the dmsetup process in {@code slot} came: {@code dmsetup suspend
   * --noflush}, to be followed by {@code dmsetup resume} {@code forPs} after it is done; or, with
   * {@code forPs} -1, that resume.
   */
  public record DmSetupAt(long atPs, int slot, long forPs) implements Command {
    /** Whether this is the resume. */
    public boolean resume() {
      return forPs < 0;
    }
  }

  /** The worker in {@code slot} got its ring's {@code uring_lock} at {@code atPs}. */
  public record UringUnlocked(long atPs, int slot) implements Command {}

  /**
   * The tick at {@code atPs} at which the run queue asks the worker in {@code slot}, spinning in
   * its {@code -EAGAIN} loop ({@link WorkerSpin}), to reschedule: spin {@code spin} ends.
   */
  public record SliceEnds(long atPs, long spin, int slot) implements Command {}

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
  public record CompletedElsewhere(long atPs, List<ForeignCompletions.Completion> completions)
      implements Command {}

  /**
   * Another CPU's poll ended the sync read of the task whose ring is {@code owner}: its
   * blkdev_bio_end_io_simple cleared bi_private and woke the task.
   */
  public record SyncReadEnded(long atPs, int owner) implements Command {}

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

  /**
   * A thread's io-wq worker that the CPU runs.
   *
   * @param thread the t/io_uring thread it works for
   * @param ring its thread's ring, as {@link IoKiocb#owner} names it
   * @param cfg its thread's configuration
   * @param shared whether the CPU is its thread's
   */
  public record WorkerLinks(int thread, int ring, CpuConfig cfg, boolean shared) {}

  /**
   * A dmsetup process that the CPU runs, for the DM device {@code device} ({@link Links#dms}).
   *
   * @param slot its place on the CPU, after the threads and the io-wq workers
   */
  public record DmSetupLinks(int slot, String device) {}

  private final int index;
  private final ThisCpu cpu;

  /** Its tasks: its threads in slot order, then its io-wq workers, then its dmsetup processes. */
  private final List<Task> tasks;

  /** Its threads, or none on a CPU that runs io-wq workers only. */
  private final List<SubmitterThread> threads;

  /** What runs on the CPU next: its tasks, its interrupts, ksoftirqd. */
  private final SchedCore<SimMessage, Outbox, NullBlkActor.TimerFired, NullBlkActor.SoftirqRaised>
      schedule;

  private final IrqPath irq;

  /** The io-wq workers this CPU runs, by the ring each works for. */
  private final Map<Integer, IoWqWorker> workerOf = new java.util.TreeMap<>();

  /** The dmsetup processes this CPU runs, in slot order. */
  private final List<DmSetup> dmsetups = new ArrayList<>();

  /**
   * @param index the CPU's number
   * @param threadLinks its submitter threads, in slot order
   * @param workerLinks the io-wq workers it runs (beside its threads, or alone)
   * @param dmsetupLinks the dmsetup processes it runs (beside its other tasks, or alone)
   * @param onlineCpus the machine's CPUs, which scale the scheduler's tunables
   * @param tick the scheduler tick, which ends the slices of tasks that share the CPU
   */
  public Cpu(
      int index,
      Links links,
      List<TaskLinks> threadLinks,
      List<WorkerLinks> workerLinks,
      List<DmSetupLinks> dmsetupLinks,
      PathCosts costs,
      int onlineCpus,
      blksim.queues.kernel.sched.SchedTick tick) {
    super(links.self().name(), Command.class);
    this.index = index;
    boolean iopoll =
        !threadLinks.isEmpty()
            ? threadLinks.get(0).cfg().iopoll()
            : !workerLinks.isEmpty() && workerLinks.get(0).cfg().iopoll();
    // a CPU that runs a worker alone charges its interrupts to the worker's ledger
    Charger charger =
        new Charger(
            costs,
            threadLinks.isEmpty() && !workerLinks.isEmpty()
                ? workerName(index, workerLinks.get(0))
                : links.self().name());
    this.cpu = new ThisCpu(index, links, costs, charger, iopoll);
    List<SubmitterThread> threadsMade = new ArrayList<>();
    for (TaskLinks t : threadLinks) {
      threadsMade.add(new SubmitterThread(new CpuCore(cpu, t)));
    }
    this.threads = List.copyOf(threadsMade);
    List<Task> made = new ArrayList<>(threads);
    blksim.queues.kernel.sched.Rq rq = new blksim.queues.kernel.sched.Rq(onlineCpus, tick);
    for (WorkerLinks w : workerLinks) {
      int slot = made.size();
      String name = workerName(index, w);
      IoWqWorker worker =
          new IoWqWorker(
              name,
              w.thread(),
              slot,
              cpu,
              threadLinks.isEmpty() && made.isEmpty() ? charger : new Charger(costs, name),
              links.peers().get(w.ring()),
              w.cfg(),
              w.shared(),
              rq::reschedTick);
      made.add(worker);
      workerOf.put(w.ring(), worker);
    }
    for (DmSetupLinks d : dmsetupLinks) {
      if (d.slot() != made.size()) {
        throw new IllegalArgumentException(name() + ": dmsetup in slot " + d.slot());
      }
      DmSetup dmsetup =
          new DmSetup(
              dmsetupName(index, d), d.slot(), cpu, d.device(), links.dms().get(d.device()));
      made.add(dmsetup);
      dmsetups.add(dmsetup);
    }
    this.tasks = List.copyOf(made);
    this.irq = new IrqPath(cpu, threads);
    this.schedule =
        new SchedCore<>(links.self().name(), tasks, irq, cpu.ksoftirqd, rq, effects(cpu));
    for (SubmitterThread thread : threads) {
      thread.core.needResched = rq::needResched;
    }
  }

  /**
   * What the CPU does for its schedule: a reply re-timed for after what ran first, a task's step at
   * its return to user space or at a {@code might_sleep}, the messages of its slices' ends and its
   * tick, and the context switch, charged to the CPU.
   */
  private static SchedCore.Effects<SimMessage, Outbox> effects(ThisCpu cpu) {
    return new SchedCore.Effects<>() {
      @Override
      public long at(SimMessage m) {
        return m.atPs();
      }

      @Override
      public SimMessage retimed(SimMessage m, long t) {
        return StashedReply.at(m, t);
      }

      @Override
      public SimMessage returnsToUser(long t, int slot) {
        return new Resume(t, slot);
      }

      @Override
      public SimMessage mightSleep(long t, int slot) {
        return new Resched(t, slot);
      }

      @Override
      public void sliceEndsAt(long at, long spin, int slot, Outbox out) {
        out.send(cpu.self, new SliceEnds(at, spin, slot));
      }

      @Override
      public void tickAt(TickSched next, Outbox out) {
        out.send(cpu.self, new Tick(next));
      }

      @Override
      public long contextSwitch(long t) {
        return cpu.charge(CpuTime.SUBMIT, KernelFn.SCHEDULE, 1); // __schedule, context_switch
      }
    };
  }

  /** An io-wq worker's name, as its books and ledger give it: {@code cpuN-iou-wrkT}. */
  private static String workerName(int cpu, WorkerLinks w) {
    return "cpu" + cpu + "-iou-wrk" + w.thread();
  }

  /** A dmsetup process's name, as its books and ledger give it: {@code cpuN-dmsetup-dm-M}. */
  private static String dmsetupName(int cpu, DmSetupLinks d) {
    return "cpu" + cpu + "-dmsetup-" + d.device();
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(Start.class, (m, out) -> threads(m).start(m.atPs(), out))
        .on(FromBioSet.class, this::onBioSetReply)
        .on(FromBlock.class, this::onBlockReply)
        .on(Resume.class, (m, out) -> schedule.step(m.slot(), m, out))
        .on(Resched.class, (m, out) -> schedule.step(m.slot(), m, out))
        .on(FromDevice.class, this::onInterrupt)
        .on(Tick.class, (m, out) -> schedule.tick(m.timer(), out))
        .on(CompletedElsewhere.class, this::onCompletedElsewhere)
        .on(SyncReadEnded.class, this::onSyncReadEnded)
        .on(WantsUringLock.class, this::onWantsUringLock)
        .on(IoWqEnqueue.class, this::onIoWqEnqueue)
        .on(DmSetupAt.class, this::onDmSetupAt)
        .on(UringUnlocked.class, (m, out) -> schedule.step(m.slot(), m, out))
        .on(SliceEnds.class, (m, out) -> schedule.sliceEnds(m.slot(), m.spin(), m.atPs(), out))
        .on(ReadCounters.class, this::onReadCounters)
        .on(Finish.class, (m, out) -> task(m.submitter()).core.sub.finish())
        .build();
  }

  /** The schedule of the CPU's threads, for {@code m}; a CPU that runs only workers has none. */
  private SchedCore<SimMessage, Outbox, NullBlkActor.TimerFired, NullBlkActor.SoftirqRaised>
      threads(Command m) {
    if (threads.isEmpty()) {
      throw new InvariantBroken(name() + " runs no thread, for " + m);
    }
    return schedule;
  }

  /** A bioset answered a task, or the interrupt path, which put the bios its interrupt ended. */
  private void onBioSetReply(FromBioSet m, Outbox out) {
    if (m.slot() == IRQ) {
      schedule.irqReturned(irq.onBiosPut(m.atPs(), out), out);
    } else {
      schedule.step(m.slot(), m.reply(), out);
    }
  }

  /**
   * A block device answered a task or the interrupt path: an interrupt's bios ended, a tag freed
   * for a worker that spins, the tag a task slept for, the task's sleep for one, or a call's end.
   */
  private void onBlockReply(FromBlock from, Outbox out) {
    BlockDevice.Reply m = from.reply();
    int slot = from.slot();
    if (m instanceof BlockDevice.IrqEnded ended) {
      schedule.irqReturned(irq.onIrqEnded(ended, out), out);
    } else if (m instanceof BlockDevice.TagFreed f) {
      IoWqWorker worker = (IoWqWorker) tasks.get(slot);
      schedule.spinEnded(slot, worker.spinEnds(f.spin(), f.atPs(), WorkerSpin.End.TAG), out);
    } else if (m instanceof BlockDevice.Woken) {
      schedule.tagWoken(slot, m, out);
    } else if (m instanceof BlockDevice.Slept) {
      schedule.slept(slot, m, out);
    } else {
      schedule.step(slot, m, out);
    }
  }

  /** A device's timer fired here, or it raised BLOCK_SOFTIRQ here. */
  private void onInterrupt(FromDevice m, Outbox out) {
    if (m.irq() instanceof NullBlkActor.SoftirqRaised raised) {
      schedule.softirqRaised(raised, raised.atPs(), out);
    } else {
      NullBlkActor.TimerFired fired = (NullBlkActor.TimerFired) m.irq();
      schedule.timerFired(fired, fired.atPs(), out);
    }
  }

  /** {@code io_wq_enqueue}: the worker of the ring is woken if it sleeps. */
  private void onIoWqEnqueue(IoWqEnqueue m, Outbox out) {
    IoWqWorker worker = workerOf.get(m.ring());
    if (worker == null) {
      throw new InvariantBroken(
          name() + " runs no io-wq worker of ring " + m.ring() + ", for " + m);
    }
    if (worker.enqueue(m.reqs())) {
      schedule.wake(worker, m.atPs(), out);
    }
  }

  /** A command's time came: the dmsetup process is woken if it sleeps. */
  private void onDmSetupAt(DmSetupAt m, Outbox out) {
    if (!(tasks.get(m.slot()) instanceof DmSetup dmsetup)) {
      throw new InvariantBroken(name() + " runs no dmsetup in slot " + m.slot() + ", for " + m);
    }
    if (dmsetup.command(m.forPs())) {
      schedule.wake(dmsetup, m.atPs(), out);
    }
  }

  private void onWantsUringLock(WantsUringLock m, Outbox out) {
    threads(m); // a CPU that runs only workers has no ring
    SubmitterThread task = cpu.taskOf(m.req()).task; // the worker's thread: its ring
    long teardown = task.path.onWantsUringLock(m, out);
    if (teardown >= 0) {
      schedule.teardownPoll(task, teardown, out);
    }
    schedule.idleSoftirq(m.atPs(), out);
  }

  private void onCompletedElsewhere(CompletedElsewhere m, Outbox out) {
    threads(m); // a CPU that runs only workers has no ring
    List<ForeignCompletions.Completion> mine = cpu.forwardForeign(m, out);
    if (mine == null) {
      return;
    }
    if (threads.size() == 1 || mine.isEmpty()) {
      completedElsewhere(threads.get(0), m.atPs(), mine, out);
      return;
    }
    Map<Integer, List<ForeignCompletions.Completion>> byRing = new java.util.TreeMap<>();
    for (ForeignCompletions.Completion done : mine) {
      byRing.computeIfAbsent(cpu.taskOf(done.req()).slot, k -> new ArrayList<>()).add(done);
    }
    byRing.forEach((slot, list) -> completedElsewhere(threads.get(slot), m.atPs(), list, out));
  }

  private void onSyncReadEnded(SyncReadEnded m, Outbox out) {
    threads(m); // a CPU that runs only workers has no ring
    completedElsewhere(cpu.taskOf(m.owner()).task, m.atPs(), List.of(), out);
  }

  private void completedElsewhere(
      SubmitterThread task, long t, List<ForeignCompletions.Completion> mine, Outbox out) {
    for (ForeignCompletions.Completion done : mine) {
      task.path.completedElsewhere(done.req(), done.res());
    }
    if (task.path.taskWorkQueuedElsewhere()) {
      schedule.wake(task, t, out);
    }
  }

  private void onReadCounters(ReadCounters m, Outbox out) {
    schedule.catchUp(m.atPs()); // a thread that turns in its empty loop has made its calls
    out.send(m.replyTo(), task(m.submitter()).core.counters(m));
  }

  private SubmitterThread task(int submitter) {
    for (SubmitterThread t : threads) {
      if (t.submitterIndex() == submitter) {
        return t;
      }
    }
    throw new IllegalStateException(name() + " runs no submitter " + submitter);
  }

  public int index() {
    return index;
  }

  /** The io-wq workers this CPU runs, in slot order. */
  public List<IoWqWorker> workers() {
    return workerOf.values().stream()
        .sorted(java.util.Comparator.comparingInt(IoWqWorker::slot))
        .toList();
  }

  /** The dmsetup processes this CPU runs, in slot order. */
  public List<DmSetup> dmsetups() {
    return List.copyOf(dmsetups);
  }

  /** The submitter threads this CPU runs, in slot order. */
  public List<SubmitterThread> threads() {
    return threads;
  }

  /** The CPU's run queue: what its tasks ran and waited. */
  public blksim.queues.kernel.sched.CfsRq runQueue() {
    return schedule.runQueue();
  }

  /** What the CPU's threads and their interrupts cost (its io-wq workers keep their own). */
  public CostLedger ledger() {
    return threads.isEmpty() ? new CostLedger() : cpu.charger.ledger();
  }

  /** Checks the submitters and their rings: every I/O submitted completed exactly once. */
  public void audit(Books books) {
    for (SubmitterThread task : threads) {
      books.drained(
          task.done(),
          who(task) + ": the submitter thread never ended, or left requests in the kernel");
    }
    books.drained(
        schedule.idle(),
        name() + ": an interrupt was left unhandled (" + schedule.leftOver() + ")");
    for (SubmitterThread task : threads) {
      task.audit(books, who(task));
    }
  }

  private String who(SubmitterThread task) {
    return threads.size() == 1 ? name() : name() + " " + task.comm();
  }
}

package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.md.MappedDeviceActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.block.fops.BlkdevDirectIoSimple;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.fs.aio.KioCtx;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.RingTask;
import blksim.queues.tiouring.Submitter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What a task's path and the interrupt path of its CPU share: the CPU's identity, refs and books,
 * and the task's ring. Each task on a CPU has its own; the CPU's charger, ksoftirqd and interrupt
 * address are one, shared by all of them. It answers what io_uring's path asks of the task ({@link
 * RingTask}).
 */
final class CpuCore implements RingTask {
  final int index;

  /** The task's place on its CPU: 0 for the first, in the order of its threads. */
  final int slot;

  /**
   * Its ring's owner, as {@link IoKiocb#owner} names it: the CPU's number for the first task on a
   * CPU, so that a run with no shared CPU names rings as it always did.
   */
  final int owner;

  final SimRef<Cpu.Command> self;
  final SimRef<BioSetActor.Command> bioset;
  final SimRef<Cpu.Report> main;
  final Submitter sub;
  final IoRingCtx ring;

  /** The ring's reads between it and the block layer: their bios' set-up, their ki_complete. */
  final IoRw rw;

  final CpuConfig cfg;
  final PathCosts costs;
  final Charger charger;
  final Histogram latencyNs = new Histogram(3);

  /**
   * TIF_NEED_RESCHED of the task at a time: its CPU's run queue asks it to let another run (never
   * for a task alone on its CPU). Set by the CPU's schedule once it is made.
   */
  java.util.function.LongPredicate needResched = t -> false;

  /** The task this is the core of, set when the task is made. */
  Task task;

  /** This CPU's {@code blk_cpu_done} and its ksoftirqd. */
  final Ksoftirqd ksoftirqd;

  /** Every ring's CPU, by the ring's owner. */
  final Map<Integer, SimRef<Cpu.Command>> peers;

  /** The tasks of this CPU, by their ring's owner, in slot order (filled once all are made). */
  final Map<Integer, CpuCore> onThisCpu;

  /** The thread's libaio context ({@code -a1}), or null. */
  final KioCtx aio;

  /** The DM devices whose clones this CPU's interrupts may end, by name. */
  final Map<String, SimRef<MappedDeviceActor.Command>> dms;

  /** The CPU running this thread's io-wq worker, or null when no bio can lack a tag. */
  final SimRef<Cpu.Command> worker;

  /** This CPU's address for a bioset's answers. */
  final SimRef<BioSetActor.Reply> biosetReplies;

  /** This CPU's address for a block device's answers. */
  final SimRef<BlockDevice.Reply> blockReplies;

  /** This CPU's address for the interrupts a device raises on it. */
  final SimRef<NullBlkActor.Interrupt> interrupts;

  /**
   * Completing another ring's request: bio_endio and io_complete_rw_iopoll write its request, its
   * bio and its io_kiocb, three lines another CPU wrote last.
   */
  final CostStep remoteCompletion;

  /** The first task of CPU {@code index}, which makes what the CPU's tasks share. */
  CpuCore(int index, Cpu.Links links, Cpu.TaskLinks task, PathCosts costs) {
    this(
        index,
        links,
        task,
        costs,
        new Charger(costs, links.self().name()),
        new Ksoftirqd(),
        links.self().adapt(Cpu.FromDevice::new),
        new TreeMap<>());
  }

  /** Another task of the CPU {@code first} runs on. */
  CpuCore(CpuCore first, Cpu.Links links, Cpu.TaskLinks task) {
    this(
        first.index,
        links,
        task,
        first.costs,
        first.charger,
        first.ksoftirqd,
        first.interrupts,
        first.onThisCpu);
  }

  private CpuCore(
      int index,
      Cpu.Links links,
      Cpu.TaskLinks task,
      PathCosts costs,
      Charger charger,
      Ksoftirqd ksoftirqd,
      SimRef<NullBlkActor.Interrupt> interrupts,
      Map<Integer, CpuCore> onThisCpu) {
    this.index = index;
    this.slot = task.slot();
    this.owner = task.ring().owner();
    this.self = links.self();
    int at = slot;
    this.biosetReplies = self.adapt(r -> new Cpu.FromBioSet(at, r));
    this.blockReplies = self.adapt(r -> new Cpu.FromBlock(at, r));
    this.interrupts = interrupts;
    this.bioset = links.bioset();
    this.main = links.main();
    this.sub = task.sub();
    this.ring = task.ring();
    this.cfg = task.cfg();
    this.rw = new IoRw(ring, cfg.iopoll());
    this.costs = costs;
    this.aio =
        cfg.aio() ? new KioCtx(Integer.highestOneBit(Math.max(1, sub.depth() - 1)) << 1) : null;
    this.charger = charger;
    this.ksoftirqd = ksoftirqd;
    this.peers = Map.copyOf(links.peers());
    this.dms = Map.copyOf(links.dms());
    this.worker = task.worker();
    this.onThisCpu = onThisCpu;
    onThisCpu.put(owner, this);
    this.remoteCompletion =
        new CostStep(Contention.LINES_REMOTE_COMPLETION, 3 * costs.lineTransferPs());
  }

  long charge(CpuTime what, KernelFn fn, int calls) {
    return charger.charge(index, what, fn, calls);
  }

  long charge(CpuTime what, KernelFn[] fns, int calls) {
    return charger.charge(index, what, fns, calls);
  }

  @Override
  public boolean ksoftirqdPending() {
    return ksoftirqd.pending();
  }

  @Override
  public boolean needResched(long t) {
    return needResched.test(t);
  }

  @Override
  public IoRingCtx ringOf(int owner) {
    CpuCore task = onThisCpu.get(owner);
    return task == null ? null : task.ring;
  }

  @Override
  public boolean queuePolls(IoKiocb req) {
    return diskOf(req, cfg).pollsBlkMq();
  }

  /**
   * The thread ended at {@code t}. Completions an interrupt queued as task_work while it was in
   * user space: nobody enters the ring again to run them, so the teardown takes them (later ones go
   * there too). An error it ended on goes to t/io_uring's main thread.
   */
  void threadExited(long t, Outbox out) {
    ring.dropTaskWorkAtExit();
    if (!sub.fatal().isEmpty()) {
      out.send(main, new Cpu.ThreadExited(t, cfg.submitter(), sub.fatal(), sub.hung()));
    }
  }

  /** A call into a block device on this task's behalf; its interrupts come back here. */
  BlockDevice.Call call(CpuTime what) {
    return new BlockDevice.Call(index, slot, what, blockReplies, interrupts, blockReplies);
  }

  /**
   * A call of this CPU's interrupt path ({@link BlockDevice.Call#IRQ}), none of its tasks'; it
   * answers through this task's address, where the CPU takes an interrupt's answers.
   */
  BlockDevice.Call irqCall(CpuTime what) {
    return new BlockDevice.Call(
        index, BlockDevice.Call.IRQ, what, blockReplies, interrupts, blockReplies);
  }

  /**
   * __blkdev_direct_IO_async's set-up of the request's bio ({@link IoRw#blkdevDirectIoAsync}).
   *
   * @param cpu the CPU that submits it
   * @param nowait REQ_NOWAIT: io_uring's inline issue, not io-wq's
   * @return where {@code submit_bio} sends it on that CPU
   */
  static SimRef<BlockDevice.Command> setUpBio(
      blksim.queues.block.bio.Bio bio, IoKiocb req, CpuConfig cfg, int cpu, boolean nowait) {
    blksim.actors.block.Disk disk = diskOf(req, cfg);
    boolean queuePolls = !cfg.iopoll() || disk.pollsBlkMq();
    return disk.submitTo(cpu, IoRw.blkdevDirectIoAsync(bio, req, cfg.iopoll(), nowait, queuePolls));
  }

  /**
   * Where {@code submit_bio} on {@code cpu} sends {@code bio} of {@code req}, set up: the queue of
   * its file's disk its polling maps it to ({@code blk_mq_map_queue}), or the bio-based disk.
   */
  static SimRef<BlockDevice.Command> submitTo(
      blksim.queues.block.bio.Bio bio, IoKiocb req, CpuConfig cfg, int cpu) {
    return diskOf(req, cfg).submitTo(cpu, bio.polled());
  }

  /** The disk of the file a request reads (t/io_uring keeps the file number in user_data). */
  static blksim.actors.block.Disk diskOf(IoKiocb req, CpuConfig cfg) {
    return cfg.disk((int) (req.sqe().userData() & 0xffffffffL));
  }

  /**
   * ki_complete of a request whose bio ended outside a poll ({@link IoRw#kiComplete}).
   *
   * @return the functions it ran, per bio
   */
  KernelFn[] endIo(IoKiocb req, int res) {
    return rw.kiComplete(req, res);
  }

  /**
   * Tells each other ring's CPU of its requests that ended here (io_complete_rw_iopoll or
   * io_complete_rw wrote into their io_kiocbs, whose lines come over), charged to {@code what}.
   *
   * @return when this CPU is done with it
   */
  long sendElsewhere(
      Map<Integer, List<Cpu.Completion>> elsewhere, long t, CpuTime what, Outbox out) {
    for (Map.Entry<Integer, List<Cpu.Completion>> e : elsewhere.entrySet()) {
      t += charger.charge(index, what, remoteCompletion, e.getValue().size());
      out.send(peers.get(e.getKey()), new Cpu.CompletedElsewhere(t, e.getValue()));
    }
    return t;
  }

  /**
   * The completions of {@code m} that are this ring's, or null when it had some and none of them
   * is; those of other rings go on to their CPUs (an io-wq worker's interrupt ended requests that a
   * kblockd restart on its CPU had dispatched).
   */
  List<Cpu.Completion> forwardForeign(Cpu.CompletedElsewhere m, Outbox out) {
    if (m.completions().stream().allMatch(done -> onThisCpu.containsKey(done.req().owner()))) {
      return m.completions();
    }
    Map<Integer, List<Cpu.Completion>> foreign = new TreeMap<>();
    List<Cpu.Completion> mine = new ArrayList<>(m.completions().size());
    for (Cpu.Completion done : m.completions()) {
      if (onThisCpu.containsKey(done.req().owner())) {
        mine.add(done);
      } else {
        foreign.computeIfAbsent(done.req().owner(), k -> new ArrayList<>()).add(done);
      }
    }
    foreign.forEach(
        (ring, list) -> out.send(peers.get(ring), new Cpu.CompletedElsewhere(m.atPs(), list)));
    return mine.isEmpty() ? null : mine;
  }

  /**
   * bi_end_io of the bios that ended in queue_rq while this thread submitted: this ring's complete
   * ({@link #endIo}; {@code done} hears of each), another ring's, which a kblockd restart here
   * dispatched, go to its CPU: their task_work is for its task.
   *
   * @return the time after them
   */
  long endSubmitted(
      List<blksim.queues.block.bio.Bio> ended,
      long t,
      java.util.function.Consumer<IoKiocb> done,
      Outbox out) {
    Elsewhere elsewhere = new Elsewhere();
    for (blksim.queues.block.bio.Bio bio : ended) {
      IoKiocb req = (IoKiocb) bio.owner();
      if (foreign(bio)) {
        elsewhere.add(req, res(bio));
        t += charge(CpuTime.SUBMIT, CpuPaths.IRQ_END_PATH, 1);
      } else if (req.owner() != owner) { // a request of another task of this CPU
        Task sibling = taskOf(req).task;
        t += charge(CpuTime.SUBMIT, sibling.core.endIo(req, res(bio)), 1);
        sibling.thread.workerCompleted(req);
        if (sibling.thread.loop().wakeIfSleeping()) { // its task_work wakes it: the CPU runs it
          t += charge(CpuTime.SUBMIT, KernelFn.TRY_TO_WAKE_UP, 1);
        }
      } else {
        t += charge(CpuTime.SUBMIT, endIo(req, res(bio)), 1);
        done.accept(req);
      }
    }
    return elsewhere.send(this, t, CpuTime.SUBMIT, out);
  }

  /**
   * Whether an interrupt here ended another ring's request (a kblockd restart on this CPU had
   * dispatched it): its io_complete_rw queues task_work for that ring's task.
   */
  boolean foreign(blksim.queues.block.bio.Bio bio) {
    return bio.owner() instanceof IoKiocb req
        && req.owner() != owner
        && !onThisCpu.containsKey(req.owner());
  }

  /** The task of this CPU whose ring {@code req} is of. */
  CpuCore taskOf(IoKiocb req) {
    CpuCore task = req.owner() == owner ? this : onThisCpu.get(req.owner());
    if (task == null) {
      throw new IllegalStateException(
          self.name() + ": request " + req.id() + " of ring " + req.owner() + " is not its own");
    }
    return task;
  }

  /** The task of this CPU whose ring is {@code ringOwner}. */
  CpuCore taskOf(int ringOwner) {
    CpuCore task = ringOwner == owner ? this : onThisCpu.get(ringOwner);
    if (task == null) {
      throw new IllegalStateException(self.name() + ": ring " + ringOwner + " is not on this CPU");
    }
    return task;
  }

  /** The task of this CPU whose libaio context is {@code ctx}. */
  CpuCore taskOf(KioCtx ctx) {
    if (ctx == aio) {
      return this;
    }
    for (CpuCore task : onThisCpu.values()) {
      if (task.aio == ctx) {
        return task;
      }
    }
    throw new IllegalStateException(self.name() + ": an aio context not of this CPU");
  }

  /** The latency histogram at the main thread's last read, for the next interval's share. */
  private org.HdrHistogram.Histogram latencyAtLastRead;

  /** The submitter's counters for t/io_uring's main thread, and the latencies since its last. */
  Cpu.Counters counters(Cpu.ReadCounters m) {
    org.HdrHistogram.Histogram interval = null;
    if (m.latency()) {
      org.HdrHistogram.Histogram now = latencyNs.copy();
      interval = now.copy();
      if (latencyAtLastRead != null) {
        interval.subtract(latencyAtLastRead);
      }
      latencyAtLastRead = now;
    }
    return new Cpu.Counters(
        m.atPs(), cfg.submitter(), sub.done(), sub.calls(), sub.reaps(), interval);
  }

  /** Reads the kernel took: SQEs, iocbs or preadv2 calls. */
  long accepted() {
    return cfg.syncIo() ? sub.calls() : aio != null ? aio.submitted() : ring.submitted();
  }

  /** Reads the kernel completed. */
  long completed() {
    return cfg.syncIo() ? sub.done() : aio != null ? aio.completed() : ring.completed();
  }

  /**
   * bi_end_io of a bio an interrupt ended: an io_uring request's ({@link #endIo}), an aio request's
   * ({@link blksim.queues.fs.aio.AioKiocb#aioCompleteRw}: its event is posted), or a sync read's on
   * the stack ({@link BlkdevDirectIoSimple#blkdevBioEndIoSimple}: its task's wait is over).
   *
   * @return the functions it ran
   */
  KernelFn[] endInIrq(blksim.queues.block.bio.Bio bio) {
    if (bio.owner() instanceof blksim.queues.fs.aio.AioKiocb req) {
      return req.aioCompleteRw(res(bio));
    }
    if (bio.pool() == null) {
      return BlkdevDirectIoSimple.blkdevBioEndIoSimple(bio);
    }
    IoKiocb req = (IoKiocb) bio.owner();
    return taskOf(req).endIo(req, res(bio));
  }

  /** The result a request completes with ({@link IoRw#res}). */
  static int res(blksim.queues.block.bio.Bio bio) {
    return IoRw.res(bio);
  }
}

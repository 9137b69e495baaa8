package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.fops.BioEndio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.fs.aio.KioCtx;
import blksim.queues.io_uring.ForeignCompletions;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.RingTask;
import blksim.queues.kernel.softirq.Ksoftirqd;
import blksim.queues.tiouring.Submitter;
import blksim.queues.tiouring.SubmitterFn;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * What one submitter thread's path needs on its CPU: its ring, its loop's state and books, and the
 * CPU it runs on ({@link ThisCpu}), whose charger, ksoftirqd and interrupt address all of the CPU's
 * tasks share. It answers what io_uring's path asks of the task ({@link RingTask}).
 */
final class CpuCore implements RingTask {
  /** The CPU the thread runs on. */
  final ThisCpu cpu;

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
   * for a task alone on its CPU). Set by {@link Cpu} from its run queue ({@code Rq.needResched}).
   */
  java.util.function.LongPredicate needResched = t -> false;

  /** The task this is the core of, set when the task is made. */
  SubmitterThread task;

  /** This CPU's {@code blk_cpu_done} and its ksoftirqd. */
  final Ksoftirqd<NullBlkActor.SoftirqRaised> ksoftirqd;

  /** Every ring's CPU, by the ring's owner. */
  final Map<Integer, SimRef<Cpu.Command>> peers;

  /** The thread's libaio context ({@code -a1}), or null. */
  final KioCtx aio;

  /** The CPU running this thread's io-wq worker, or null when no bio can lack a tag. */
  final SimRef<Cpu.Command> worker;

  /** This task's address for a bioset's answers. */
  final SimRef<BioSetActor.Reply> biosetReplies;

  /** This task's address for a block device's answers. */
  final SimRef<BlockDevice.Reply> blockReplies;

  /** This CPU's address for the interrupts a device raises on it. */
  final SimRef<NullBlkActor.Interrupt> interrupts;

  /** Thread {@code task} on {@code cpu}. */
  CpuCore(ThisCpu cpu, Cpu.TaskLinks task) {
    this.cpu = cpu;
    this.index = cpu.index;
    this.slot = task.slot();
    this.owner = task.ring().owner();
    this.self = cpu.self;
    int at = slot;
    this.biosetReplies = self.adapt(r -> new Cpu.FromBioSet(at, r));
    this.blockReplies = self.adapt(r -> new Cpu.FromBlock(at, r));
    this.interrupts = cpu.interrupts;
    this.bioset = cpu.bioset;
    this.main = cpu.main;
    this.sub = task.sub();
    this.ring = task.ring();
    this.cfg = task.cfg();
    this.rw = new IoRw(ring, cfg.iopoll());
    this.costs = cpu.costs;
    this.aio = cfg.aio() ? new KioCtx(SubmitterFn.aioEvents(sub.depth())) : null;
    this.charger = cpu.charger;
    this.ksoftirqd = cpu.ksoftirqd;
    this.peers = cpu.peers;
    this.worker = task.worker();
    cpu.rings.put(owner, this);
  }

  long charge(CpuTime what, KernelFn fn, int calls) {
    return charger.charge(index, what, fn, calls);
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
    CpuCore task = cpu.rings.get(owner);
    return task == null ? null : task.ring;
  }

  @Override
  public boolean queuePolls(IoKiocb req) {
    return diskOf(req, cfg).pollsBlkMq();
  }

  /** The thread ended at {@code t}: an error it ended on goes to t/io_uring's main thread. */
  void threadExited(long t, Outbox out) {
    if (!sub.fatal().isEmpty()) {
      out.send(main, new Cpu.ThreadExited(t, cfg.submitter(), sub.fatal(), sub.hung()));
    }
  }

  /** A call into a block device on this task's behalf; its interrupts come back here. */
  BlockDevice.Call call(CpuTime what) {
    return new BlockDevice.Call(index, slot, what, blockReplies, interrupts, cpu.irqBlockReplies);
  }

  /**
   * Where {@code submit_bio} on {@code cpu} sends {@code bio} of {@code req}, set up: the queue of
   * its file's disk its polling maps it to ({@code blk_mq_map_queue}), or the bio-based disk.
   */
  static SimRef<BlockDevice.Command> submitTo(Bio bio, IoKiocb req, CpuConfig cfg, int cpu) {
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
   * bi_end_io of the bios that ended in queue_rq while this thread submitted ({@link
   * BioEndio#inSubmit}): this ring's complete ({@link #endIo}; {@code done} hears of each), another
   * ring's, which a kblockd restart here dispatched, go to its CPU: their task_work is for its
   * task.
   */
  @Override
  public ForeignCompletions.Told endSubmitted(List<Bio> ended, long t, Consumer<IoKiocb> done) {
    ForeignCompletions elsewhere = new ForeignCompletions();
    t = cpu.bioEndio(CpuTime.SUBMIT, elsewhere).inSubmit(t, slot, ended, done);
    return elsewhere.isEmpty()
        ? new ForeignCompletions.Told(t, List.of())
        : elsewhere.tell(charger, index, CpuTime.SUBMIT, cpu.remoteCompletion, t);
  }

  /** The latency histogram at the main thread's last read, for the next interval's share. */
  private Histogram latencyAtLastRead;

  /** The submitter's counters for t/io_uring's main thread, and the latencies since its last. */
  Cpu.Counters counters(Cpu.ReadCounters m) {
    Histogram interval = null;
    if (m.latency()) {
      Histogram now = latencyNs.copy();
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

  /** The result a request completes with ({@link IoRw#res}). */
  static int res(Bio bio) {
    return IoRw.res(bio);
  }
}

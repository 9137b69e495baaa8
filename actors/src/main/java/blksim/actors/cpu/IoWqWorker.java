package blksim.actors.cpu;

import blksim.actors.bioset.BioSetCache;
import blksim.actors.block.BlockDevice;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Charger;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.uring.IoKiocb;
import blksim.queues.uring.IoWq;
import java.util.List;

/**
 * A CPU with no submitter, running one thread's io-wq worker ({@link IoWq}): it issues the requests
 * the thread punted, one at a time, retrying each until its bio gets a tag, and puts each on the
 * ring's IOPOLL list under the ring's {@code uring_lock}, spinning while the thread holds it.
 *
 * <p>The scheduler wakes an io-wq worker on an idle CPU of the node (5.16 binds workers to the
 * node, not to the submitter's CPU); blksim gives each thread that may need one a CPU of its own.
 */
public final class IoWqWorker extends AbstractComponent<IoWqWorker.Command> {

  /** Everything an io-wq worker understands. */
  public sealed interface Command extends SimMessage
      permits Enqueue, UringUnlocked, FromBioSet, FromBlock {}

  /** {@code io_queue_async_work}: requests of {@code owner}'s ring punted to its io-wq worker. */
  public record Enqueue(long atPs, List<IoKiocb> reqs, SimRef<Cpu.Command> owner)
      implements Command {}

  /** The worker got the ring's {@code uring_lock} at {@code atPs} and added its request. */
  public record UringUnlocked(long atPs) implements Command {}

  /** A bioset's answer, through the worker's adapter. */
  public record FromBioSet(BioSetCache.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /** A block device's answer, through the worker's adapter. */
  public record FromBlock(BlockDevice.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  private final int index;
  private final SimRef<Command> self;
  private final SimRef<BioSetCache.Reply> biosetReplies;
  private final SimRef<BlockDevice.Reply> blockReplies;
  private final SimRef<BioSetCache.Command> bioset;
  private final CpuConfig cfg;
  private final Charger charger;
  private final IoWq wq = new IoWq();
  private final CostStep lockLines;
  private SimRef<Cpu.Command> owner;
  private IoKiocb current;
  private long lockAskedAtPs;
  private long lockWaitPs;

  /** When the CPU has finished switching the sleeping worker out: a wake-up cannot start sooner. */
  private long freeAtPs;

  /**
   * @param index the CPU's number
   * @param cfg the owner thread's files, mapped to the hardware queues of this CPU
   */
  public IoWqWorker(
      int index,
      SimRef<Command> self,
      SimRef<BioSetCache.Command> bioset,
      CpuConfig cfg,
      PathCosts costs) {
    super(self.name(), Command.class);
    this.index = index;
    this.self = self;
    this.biosetReplies = self.adapt(FromBioSet::new);
    this.blockReplies = self.adapt(FromBlock::new);
    this.bioset = bioset;
    this.cfg = cfg;
    this.charger = new Charger(costs, name());
    // The mutex word and the IOPOLL list's tail, both last written by the submitter's CPU.
    this.lockLines = new CostStep(Contention.LINES_URING_LOCK, 2 * costs.lineTransferPs());
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(Enqueue.class, this::onEnqueue)
        .on(FromBioSet.class, this::onBioSetReply)
        .on(FromBlock.class, this::onBlockReply)
        .on(UringUnlocked.class, this::onUringUnlocked)
        .build();
  }

  private void onBioSetReply(FromBioSet m, Outbox out) {
    if (m.reply() instanceof BioSetCache.Allocated a) {
      onBiosAllocated(a, out);
    } else {
      issueNext(m.atPs(), out);
    }
  }

  private void onBlockReply(FromBlock m, Outbox out) {
    if (!(m.reply() instanceof BlockDevice.Submitted q)) {
      throw new InvariantBroken(name() + ": the io-wq worker neither polls nor takes interrupts");
    }
    onBiosQueued(q, out);
  }

  private void onEnqueue(Enqueue m, Outbox out) {
    owner = m.owner();
    if (wq.enqueue(m.reqs())) {
      issueNext(Math.max(m.atPs(), freeAtPs) + charge(KernelFn.SCHEDULE), out);
    }
  }

  /** io_worker_handle_work: issue the head request, or sleep when there is none. */
  private void issueNext(long t, Outbox out) {
    current = wq.next();
    if (current == null) {
      freeAtPs = t + charge(KernelFn.SCHEDULE);
      return;
    }
    t += charger.charge(index, CpuTime.SUBMIT, CpuPaths.WORKER_ISSUE_PATH, 1);
    out.send(
        bioset,
        new BioSetCache.AllocBios(
            t,
            index,
            CpuTime.SUBMIT,
            1,
            cfg.allocCache(),
            cfg.nrVecs(),
            KernelFn.BIO_ALLOC_KIOCB,
            biosetReplies));
  }

  private void onBiosAllocated(BioSetCache.Allocated m, Outbox out) {
    Bio bio = m.bios().get(0);
    SimRef<BlockDevice.Command> to = CpuCore.setUpBio(bio, current, cfg, index, false);
    long t = m.atPs() + charger.charge(index, CpuTime.SUBMIT, CpuPaths.PAGES_PATH, 1);
    out.send(
        to,
        new BlockDevice.SubmitBio(
            t,
            new BlockDevice.Call(index, CpuTime.SUBMIT, blockReplies, null, null),
            List.of(bio)));
  }

  private void onBiosQueued(BlockDevice.Submitted m, Outbox out) {
    if (!m.ended().isEmpty()) {
      throw new InvariantBroken(name() + ": a polled request completed at queue_rq");
    }
    if (!m.wouldBlock().isEmpty()) {
      // Still no tag: the bio ends with -EAGAIN, io_read asks for a reissue, cond_resched, again.
      wq.retried();
      current.setKiocbPrivate(null);
      long t = m.atPs() + charger.charge(index, CpuTime.SUBMIT, CpuPaths.WORKER_RETRY_PATH, 1);
      out.send(
          bioset, new BioSetCache.PutBios(t, index, CpuTime.SUBMIT, m.wouldBlock(), biosetReplies));
      return;
    }
    lockAskedAtPs = m.atPs();
    out.send(owner, new Cpu.WantsUringLock(m.atPs(), current, self));
  }

  private void onUringUnlocked(UringUnlocked m, Outbox out) {
    long waitPs = m.atPs() - lockAskedAtPs;
    lockWaitPs += waitPs;
    long t = m.atPs();
    if (waitPs > 0) {
      charger.charge(
          index, CpuTime.LOCK_WAIT, new CostStep(Contention.LOCK_WAIT_URING_LOCK, waitPs), 1);
    }
    t +=
        charge(KernelFn.IO_IOPOLL_REQ_ISSUED) + charger.charge(index, CpuTime.SUBMIT, lockLines, 1);
    wq.issued();
    issueNext(t, out);
  }

  private long charge(KernelFn fn) {
    return charger.charge(index, CpuTime.SUBMIT, fn, 1);
  }

  public int index() {
    return index;
  }

  public IoWq wq() {
    return wq;
  }

  /** When the worker last finished going to sleep: the end of its CPU's work, in ps. */
  public long freeAtPs() {
    return freeAtPs;
  }

  /** Time spent spinning for the ring's uring_lock, in ps. */
  public long lockWaitPs() {
    return lockWaitPs;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }

  public void audit(Books books) {
    wq.audit(books, name());
    books.check(current == null, name() + ": the io-wq worker was left with a request");
  }
}

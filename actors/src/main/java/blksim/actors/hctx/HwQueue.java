package blksim.actors.hctx;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.BlockDevice.Call;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Charger;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.actors.nullblk.NullBlkDevice;
import blksim.config.BooksSettings;
import blksim.queues.bio.Bio;
import blksim.queues.blkmq.HwCtx;
import blksim.queues.blkmq.Plug;
import blksim.queues.blkmq.Request;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The actor of a blk-mq hardware queue ({@link HwCtx}): {@code blk_mq_submit_bio} for a batch of
 * bios (a request and tag each, gathered in a plug), dispatch of the plug to the driver's {@code
 * queue_rq}, and, when a CPU polls, {@code blk_mq_poll} into the driver and {@code
 * blk_mq_end_request} of what it found, which frees the tags. Work is charged to the calling CPU.
 */
public final class HwQueue extends AbstractComponent<HwQueue.Command> {

  /** Everything a hardware queue understands. */
  public sealed interface Command extends SimMessage permits FromUpper, FromDriver {}

  /** A block-device command from a submitter, through this queue's adapter. */
  public record FromUpper(BlockDevice.Command command) implements Command {
    @Override
    public long atPs() {
      return command.atPs();
    }
  }

  /** The driver's answer, through this queue's adapter. */
  public record FromDriver(NullBlkDevice.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  private final HwCtx hctx;
  private final SimRef<NullBlkDevice.Command> driver;
  private final Charger charger;
  private final CostStep sbitmapLine;
  private final CostStep requestLine;
  private int remoteFrees;
  private final Map<Integer, List<Bio>> wouldBlock = new HashMap<>();

  /** The last call of each CPU, by CPU number: where the driver's answers for it go. */
  private final Map<Integer, Call> callers = new HashMap<>();

  /** Bios the driver ended in the earlier rounds of a call that kblockd redispatches, by CPU. */
  private final Map<Integer, List<Bio>> endedEarlier = new HashMap<>();

  /** Requests the driver took in those earlier rounds, by CPU. */
  private final Map<Integer, Integer> queuedEarlier = new HashMap<>();

  /** Where the ends of each CPU's interrupts go: that CPU's interrupt path, by CPU number. */
  private final Map<Integer, SimRef<BlockDevice.Reply>> irqEnds = new HashMap<>();

  private boolean leakOneTag;

  /** Requests this queue ends before it throws on purpose; 0 for never. */
  private long throwAfter;

  public HwQueue(
      SimRef<Command> self,
      HwCtx hctx,
      SimRef<NullBlkDevice.Command> driver,
      PathCosts costs,
      BooksSettings books) {
    super(self.name(), Command.class);
    this.hctx = hctx;
    this.driver = driver;
    this.charger = new Charger(costs, name());
    this.sbitmapLine = new CostStep(Contention.LINE_SBITMAP_WORD, costs.lineTransferPs());
    this.requestLine = new CostStep(Contention.LINE_REQUEST, costs.lineTransferPs());
    this.leakOneTag = books.breakOnPurpose() == BooksSettings.Break.LEAK_TAG;
    this.throwAfter = books.breakOnPurpose() == BooksSettings.Break.THROW ? books.throwAfter() : 0;
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(FromUpper.class, this::onUpper)
        .on(FromDriver.class, this::onDriverReply)
        .build();
  }

  private void onUpper(FromUpper m, Outbox out) {
    if (m.command() instanceof BlockDevice.SubmitBio s) {
      onSubmitBios(s, out);
    } else {
      onPoll((BlockDevice.PollBio) m.command(), out);
    }
  }

  private void onSubmitBios(BlockDevice.SubmitBio m, Outbox out) {
    int cpu = m.call().cpu();
    Plug plug = new Plug();
    int remote = 0;
    int remoteRqs = 0;
    List<Bio> wouldBlock = new ArrayList<>();
    for (Bio bio : m.bios()) {
      HwCtx.Alloc a = hctx.alloc(cpu, bio, m.atPs());
      Request rq = a.rq();
      if (rq == null) {
        // blk_mq_get_new_requests under REQ_NOWAIT: bio_wouldblock_error, BLK_STS_AGAIN.
        bio.setStatus(-BlockDevice.BLK_STS_AGAIN_ERRNO);
        wouldBlock.add(bio);
        continue;
      }
      bio.setCookie(hctx.index());
      remote += a.tagWordRemote() ? 1 : 0;
      remoteRqs += a.requestRemote() ? 1 : 0;
      plug.add(rq);
    }
    int queued = m.bios().size() - wouldBlock.size();
    long t =
        m.atPs()
            + charge(m.call(), SUBMIT_PATH, queued)
            + charge(m.call(), NO_TAG_PATH, wouldBlock.size())
            + charger.charge(cpu, m.call().what(), sbitmapLine, remote)
            + charger.charge(cpu, m.call().what(), requestLine, remoteRqs);
    if (queued == 0) {
      out.send(m.call().replyTo(), new BlockDevice.Submitted(t, 0, List.of(), wouldBlock));
      return;
    }
    if (!wouldBlock.isEmpty()) {
      this.wouldBlock.put(cpu, wouldBlock);
    }
    List<Request> rqs = new ArrayList<>(queued);
    for (List<Request> flush : plug.finish()) {
      for (Request rq : flush) {
        hctx.dispatched(rq);
        rqs.add(rq);
      }
    }
    t += charge(m.call(), KernelFn.BLK_MQ_FLUSH_PLUG_LIST, rqs.size());
    remember(m.call());
    out.send(driver, new NullBlkDevice.QueueRqs(t, hctx.index(), rqs, m.call().exec()));
  }

  /** blk_mq_poll of this queue: whichever bio's cookie named it, the queue is what is polled. */
  private void onPoll(BlockDevice.PollBio m, Outbox out) {
    remember(m.call());
    out.send(driver, new NullBlkDevice.PollQueue(m.atPs(), hctx.index(), m.call().exec()));
  }

  private void remember(Call call) {
    callers.put(call.cpu(), call);
    if (call.irqEnds() != null) {
      irqEnds.put(call.cpu(), call.irqEnds());
    }
  }

  /**
   * The driver's answer goes back to the caller whose execution it carries: a CPU calls a queue
   * once at a time, and the interrupt that ends its timers runs on the CPU that queued them.
   */
  private void onDriverReply(FromDriver m, Outbox out) {
    NullBlkDevice.Exec e = execOf(m.reply());
    Call c = callers.get(e.cpu());
    if (c == null) {
      throw new InvariantBroken(
          name() + ": the driver answered cpu" + e.cpu() + ", who never called");
    }
    Call call = new Call(e.cpu(), e.what(), c.replyTo(), e.interrupts(), c.irqEnds());
    if (m.reply() instanceof NullBlkDevice.Queued q) {
      onRqsQueued(q, call, out);
    } else if (m.reply() instanceof NullBlkDevice.PolledRqs p) {
      onRqsPolled(p, call, out);
    } else {
      onEndRequests((NullBlkDevice.TimersEnded) m.reply(), call, out);
    }
  }

  private static NullBlkDevice.Exec execOf(NullBlkDevice.Reply r) {
    if (r instanceof NullBlkDevice.Queued q) {
      return q.exec();
    }
    if (r instanceof NullBlkDevice.PolledRqs p) {
      return p.exec();
    }
    return ((NullBlkDevice.TimersEnded) r).exec();
  }

  /** Requests the driver completed while queueing them end here, on the submitting CPU. */
  private void onRqsQueued(NullBlkDevice.Queued m, Call call, Outbox out) {
    int cpu = call.cpu();
    long t = m.atPs();
    if (m.viaCompleteRequest()) {
      t += charge(call, KernelFn.BLK_MQ_COMPLETE_REQUEST, m.completed().size());
    }
    List<Bio> ended = m.completed().isEmpty() ? List.of() : endRequests(cpu, m.completed(), t);
    t += charge(call, END_PATH, m.completed().size()) + remoteFreeCost(call);
    List<Bio> before = endedEarlier.remove(cpu);
    if (before != null) {
      before.addAll(ended);
      ended = before;
    }
    if (!m.busy().isEmpty() || !m.requeued().isEmpty()) {
      redispatch(m, call, t, ended, out);
      return;
    }
    List<Bio> failed = wouldBlock.remove(cpu);
    out.send(
        call.replyTo(),
        new BlockDevice.Submitted(
            t, queuedBefore(cpu) + m.count(), ended, failed == null ? List.of() : failed));
  }

  /**
   * The driver turned requests away: back on the dispatch list ({@code BLK_STS_RESOURCE}) or on the
   * requeue list ({@code blk_mq_requeue_request}), then kblockd's work dispatches them again.
   * kblockd is a bound workqueue of the submitting CPU, whose worker, woken, preempts the submitter
   * there: the call goes on when the driver has taken them all.
   */
  private void redispatch(NullBlkDevice.Queued m, Call call, long t, List<Bio> ended, Outbox out) {
    int cpu = call.cpu();
    List<Request> again = new ArrayList<>(m.busy().size() + m.requeued().size());
    for (Request rq : m.busy()) {
      hctx.turnedAway(rq, true);
      again.add(rq);
    }
    for (Request rq : m.requeued()) {
      hctx.turnedAway(rq, false);
      again.add(rq);
    }
    t +=
        charge(call, KernelFn.BLK_MQ_BYPASS_INSERT, m.busy().size())
            + charge(call, KernelFn.BLK_MQ_REQUEUE_REQUEST, m.requeued().size())
            + charge(call, KernelFn.TRY_TO_WAKE_UP, 1)
            + charge(call, KernelFn.SCHEDULE, 1)
            + charge(call, KernelFn.BLK_MQ_REQUEUE_WORK, m.requeued().size())
            + charge(call, KernelFn.BLK_MQ_RUN_WORK, 1)
            + charge(call, KernelFn.BLK_MQ_FLUSH_PLUG_LIST, again.size())
            + charge(call, KernelFn.SCHEDULE, 1);
    for (Request rq : again) {
      hctx.redispatched(rq);
    }
    endedEarlier.put(cpu, new ArrayList<>(ended));
    queuedEarlier.merge(cpu, m.count() - again.size(), Integer::sum);
    out.send(driver, new NullBlkDevice.QueueRqs(t, hctx.index(), again, call.exec()));
  }

  /** Requests of the call under way that the driver took in its earlier rounds. */
  private int queuedBefore(int cpu) {
    Integer n = queuedEarlier.remove(cpu);
    return n == null ? 0 : n;
  }

  /** blk_mq_end_request_batch: each request's bio ends, then its tag is freed. */
  private void onRqsPolled(NullBlkDevice.PolledRqs m, Call call, Outbox out) {
    int cpu = call.cpu();
    List<Bio> ended = endRequests(cpu, m.rqs(), m.atPs());
    long t = m.atPs() + charge(call, END_PATH, m.rqs().size()) + remoteFreeCost(call);
    out.send(call.replyTo(), new BlockDevice.Polled(t, ended));
  }

  private void onEndRequests(NullBlkDevice.TimersEnded m, Call call, Outbox out) {
    List<Bio> ended = endRequests(call.cpu(), m.rqs(), m.atPs());
    long t = m.atPs() + charge(call, END_PATH, m.rqs().size()) + remoteFreeCost(call);
    // The interrupt runs on the CPU that armed the timer; its bios end there, whoever submitted
    // them.
    out.send(irqEnds.get(call.cpu()), new BlockDevice.IrqEnded(t, ended));
  }

  /** Tag words whose lines the last endRequests pulled from other CPUs. */
  private long remoteFreeCost(Call call) {
    long ps = charger.charge(call.cpu(), call.what(), sbitmapLine, remoteFrees);
    remoteFrees = 0;
    return ps;
  }

  /** Ends each request: its bio completes, its tag is freed. */
  private List<Bio> endRequests(int cpu, List<Request> rqs, long atPs) {
    List<Bio> ended = new ArrayList<>(rqs.size());
    remoteFrees = 0;
    for (Request rq : rqs) {
      if (throwAfter > 0 && --throwAfter == 0) {
        throw new IllegalStateException("broken on purpose (books.break = throw)");
      }
      Bio bio = rq.bio();
      bio.setStatus(rq.error());
      ended.add(bio);
      if (leakOneTag) {
        leakOneTag = false;
        continue;
      }
      remoteFrees += hctx.freeRequest(rq, cpu, atPs) ? 1 : 0;
    }
    return ended;
  }

  /** blk-mq's functions from submit_bio to a request in the plug, per bio. */
  private static final KernelFn[] SUBMIT_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_START
  };

  /** What a bio that finds no tag runs, from submit_bio to bio_wouldblock_error. */
  private static final KernelFn[] NO_TAG_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.BLK_MQ_SUBMIT_BIO,
    KernelFn.BLK_MQ_ALLOC_REQUESTS,
    KernelFn.BLK_MQ_GET_TAG_FAILED,
    KernelFn.BIO_WOULDBLOCK_ERROR
  };

  /** blk_mq_end_request of one request. */
  private static final KernelFn[] END_PATH = {
    KernelFn.BLK_MQ_END_REQUEST,
    KernelFn.END_REQUEST_STATS,
    KernelFn.KTIME_GET_NS,
    KernelFn.BLK_ACCOUNT_IO_DONE
  };

  private long charge(Call call, KernelFn fn, int calls) {
    return charger.charge(call.cpu(), call.what(), fn, calls);
  }

  private long charge(Call call, KernelFn[] fns, int calls) {
    return charger.charge(call.cpu(), call.what(), fns, calls);
  }

  public HwCtx hctx() {
    return hctx;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }

  /** The hardware context's books, and nothing of a call left half done here. */
  public void audit(blksim.queues.books.Books books) {
    hctx.audit(books);
    books.check(wouldBlock.isEmpty(), name() + ": bios that found no tag never ended (-EAGAIN)");
    books.check(
        endedEarlier.isEmpty() && queuedEarlier.isEmpty(),
        name() + ": a call that kblockd redispatched never finished");
  }
}

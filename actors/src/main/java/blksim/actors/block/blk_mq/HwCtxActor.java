package blksim.actors.block.blk_mq;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.BlockDevice.Call;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.config.BooksSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Plug;
import blksim.queues.block.blk_mq.PlugAlloc;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.block.blk_mq_sched.BlkMqSched;
import blksim.queues.block.blk_mq_sched.SchedStats;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
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
public final class HwCtxActor extends AbstractComponent<HwCtxActor.Command> {

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
  public record FromDriver(NullBlkActor.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  private final HwCtx hctx;
  private final SimRef<NullBlkActor.Command> driver;
  private final Charger charger;
  private final CostStep sbitmapLine;
  private final CostStep requestLine;
  private final Map<Integer, List<Bio>> wouldBlock = new HashMap<>();

  /** Each CPU's call while the driver has it, and where that CPU's interrupts end. */
  private final Callers callers = new Callers();

  private final RequestEnds ends;
  private final BlkMqSched sched;
  private final KblockdRounds rounds;

  private final SbqWaitState<Call> waits;
  private final HctxFeatures features;

  public HwCtxActor(
      SimRef<Command> self,
      HwCtx hctx,
      SimRef<NullBlkActor.Command> driver,
      PathCosts costs,
      BooksSettings books,
      HctxFeatures features) {
    super(self.name(), Command.class);
    this.features = features;
    this.hctx = hctx;
    this.driver = driver;
    this.charger = new Charger(costs, name());
    this.sbitmapLine = new CostStep(Contention.LINE_SBITMAP_WORD, costs.lineTransferPs());
    this.requestLine = new CostStep(Contention.LINE_REQUEST, costs.lineTransferPs());
    this.ends = new RequestEnds(hctx, books, sbitmapLine);
    this.sched =
        hctx.elevator() == null
            ? null
            : new BlkMqSched(
                hctx,
                charger,
                costs.lineTransferPs(),
                features.endsInQueueRq(),
                HctxPaths.KBLOCKD_PATH);
    this.rounds = new KblockdRounds(hctx, driver, charger, sched);
    this.waits = new SbqWaitState<>(hctx.tags(), charger);
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
      submit(s.call(), s.atPs(), s.bios(), s.plugNrIos(), new Plug(), out);
    } else if (m.command() instanceof BlockDevice.TagRetry r) {
      onTagRetry(r, out);
    } else if (m.command() instanceof BlockDevice.SpinFor f) {
      if (waits.spin(f.call(), f.untilPs(), f.spin())) {
        out.send(f.call().replyTo(), new BlockDevice.TagFreed(f.atPs(), f.spin()));
      }
    } else {
      onPoll((BlockDevice.PollBio) m.command(), out);
    }
  }

  /**
   * {@code blk_mq_submit_bio} of {@code bios} into {@code plug}, then its flush. A bio without
   * REQ_NOWAIT that finds no tag sleeps in {@code blk_mq_get_tag} with the bios after it, once the
   * plug is flushed ({@code schedule()}'s {@code blk_flush_plug}).
   */
  private void submit(Call call, long atPs, List<Bio> bios, int plugNrIos, Plug plug, Outbox out) {
    int cpu = call.cpu();
    PlugAlloc alloc =
        new PlugAlloc(
            hctx,
            features.plugBatchAlloc() ? plugNrIos : 1,
            features.nomerges() < 2 ? PlugAlloc.Limits.NULL_BLK : null);
    int remote = 0;
    int remoteRqs = 0;
    int[] how = new int[PlugAlloc.How.values().length];
    List<Bio> wouldBlock = new ArrayList<>();
    List<Bio> rest = null;
    for (int i = 0; i < bios.size() && rest == null; i++) {
      Bio bio = bios.get(i);
      PlugAlloc.Got a = alloc.get(cpu, bio, atPs);
      Request rq = a.rq();
      if (rq == null && waits.blocks(bio)) {
        rest = bios.subList(i, bios.size());
        continue;
      }
      how[a.how().ordinal()]++;
      remote += a.tagWordRemote() ? 1 : 0;
      remoteRqs += a.requestsRemote();
      if (rq == null) {
        // blk_mq_get_new_requests under REQ_NOWAIT: bio_wouldblock_error, BLK_STS_AGAIN.
        bio.setStatus(-BlockDevice.BLK_STS_AGAIN_ERRNO);
        wouldBlock.add(bio);
        continue;
      }
      bio.setCookie(hctx.index());
      if (a.how() != PlugAlloc.How.MERGED && a.how() != PlugAlloc.How.MERGED_CACHED) {
        plug.add(rq);
      }
    }
    int merged = how[PlugAlloc.How.MERGED.ordinal()] + how[PlugAlloc.How.MERGED_CACHED.ordinal()];
    int unused = alloc.finish(cpu, atPs);
    long t = atPs;
    for (PlugAlloc.How h : HctxPaths.CHARGE_ORDER) {
      t += charge(call, HctxPaths.of(h), how[h.ordinal()]);
      if (h == PlugAlloc.How.NO_TAG) {
        t += charge(call, HctxPaths.UNUSED_PATH, unused);
      }
    }
    int tried = bios.size() - (rest == null ? 0 : rest.size());
    int missed = features.nomerges() < 2 ? tried - merged : 0;
    t +=
        (missed > 0 ? charge(call, HctxPaths.MERGE_MISS_PATH, missed) : 0)
            + (sched == null ? 0 : sched.blkMqSchedBioMerge(cpu, call.what(), missed, t))
            + (sched == null ? 0 : sched.prepareRequest(cpu, call.what(), plug.size() + unused))
            + charger.charge(cpu, call.what(), sbitmapLine, remote)
            + charger.charge(cpu, call.what(), requestLine, remoteRqs);
    t += wakeSleepers(call, unused, t, out);
    if (rest != null && !wouldBlock.isEmpty()) {
      throw new InvariantBroken(name() + ": a submission both failed with -EAGAIN and slept");
    }
    if (rest != null && plug.size() == 0) {
      sleepForTag(call, rest, t, HctxPaths.TAG_SLEEP_PATH, out);
      return;
    }
    if (rest != null) {
      // on the wait queue already (sbitmap_prepare_to_wait), it sleeps once the flush is queued
      waits.prepareToWaitBeforeFlush(call, cpu, rest, t);
    }
    if (plug.size() == 0) {
      out.send(call.replyTo(), new BlockDevice.Submitted(t, 0, List.of(), wouldBlock));
      return;
    }
    if (!wouldBlock.isEmpty()) {
      this.wouldBlock.put(cpu, wouldBlock);
    }
    dispatch(call, plug, t, plug.size(), out);
  }

  /**
   * The task that slept for a tag runs again: {@code blk_mq_get_tag} tries again, and with a tag
   * the allocation and the submission go on; without one it sleeps again.
   */
  private void onTagRetry(BlockDevice.TagRetry m, Outbox out) {
    Bio bio = m.bios().get(0);
    HwCtx.Alloc a = hctx.alloc(m.call().cpu(), bio, m.atPs());
    if (a.rq() == null) {
      sleepForTag(m.call(), m.bios(), m.atPs(), HctxPaths.TAG_SLEEP_AGAIN_PATH, out);
      return;
    }
    bio.setCookie(hctx.index());
    Plug plug = new Plug();
    plug.add(a.rq());
    long t =
        m.atPs()
            + charge(m.call(), HctxPaths.TAG_WOKEN_PATH, 1)
            + charger.charge(
                m.call().cpu(), m.call().what(), sbitmapLine, a.tagWordRemote() ? 1 : 0);
    submit(m.call(), t, m.bios().subList(1, m.bios().size()), 1, plug, out);
  }

  /** blk_mq_flush_plug_list of what the submission plugged: the driver's queue_rq. */
  private void dispatch(Call call, Plug plug, long t, int queued, Outbox out) {
    List<Request> rqs = new ArrayList<>(queued);
    if (sched == null) {
      plug.finish().forEach(rqs::addAll);
    } else {
      BlkMqSched.Dispatched d =
          sched.blkMqSchedInsertRequests(call.cpu(), call.what(), plug.finish(), t);
      rqs = d.rqs();
      t = d.atPs();
    }
    rqs.forEach(hctx::dispatched);
    t += charge(call, HctxPaths.DISPATCH_PATH, rqs.size());
    callers.remember(call);
    out.send(driver, new NullBlkActor.QueueRqs(t, hctx.index(), rqs, call.exec()));
  }

  /** blk_mq_poll of this queue: whichever bio's cookie named it, the queue is what is polled. */
  private void onPoll(BlockDevice.PollBio m, Outbox out) {
    callers.polls(m.call(), m.batch());
    out.send(driver, new NullBlkActor.PollQueue(m.atPs(), hctx.index(), m.call().exec()));
  }

  /** The driver's answer goes to the caller whose execution it carries (one call a CPU at once). */
  private void onDriverReply(FromDriver m, Outbox out) {
    Call call = callers.answered(name(), m.reply().exec());
    if (m.reply() instanceof NullBlkActor.Queued q) {
      onRqsQueued(q, call, out);
    } else if (m.reply() instanceof NullBlkActor.PolledRqs p) {
      onRqsPolled(p, call, out);
    } else {
      onEndRequests((NullBlkActor.TimersEnded) m.reply(), call, out);
    }
  }

  /** Requests the driver completed while queueing them end here, on the submitting CPU. */
  private void onRqsQueued(NullBlkActor.Queued m, Call call, Outbox out) {
    int cpu = call.cpu();
    long t = m.atPs();
    List<Bio> irq = rounds.irqRestartQueued(call);
    if (irq != null) {
      // kblockd's restart was queued (by timers: nothing ended in queue_rq): the interrupt goes on
      out.send(callers.irqEnds(cpu), new BlockDevice.IrqEnded(t, irq));
      return;
    }
    if (m.viaCompleteRequest()) {
      t += charge(call, KernelFn.BLK_MQ_COMPLETE_REQUEST, m.completed().size());
    }
    RequestEnds.Ended e = ends.oneByOne(cpu, m.completed(), t);
    t += ends.cost(charger, call, m.completed().size(), e);
    t += wakeSleepers(call, m.completed().size(), t, out);
    List<Bio> ended = rounds.withEarlier(cpu, e.bios());
    if (!m.busy().isEmpty() || !m.requeued().isEmpty()) {
      rounds.redispatch(m, call, t, ended, out);
      return;
    }
    int mine = call.what() == CpuTime.KWORKER ? 0 : m.count();
    t = rounds.resumeAfterQueueRq(call, t, ended, mine, out);
    if (t < 0) {
      return;
    }
    t = rounds.restartAfterQueueRq(call, t, ended, mine, out);
    if (t < 0) {
      return;
    }
    List<Bio> failed = wouldBlock.remove(cpu);
    if (sleepsAfterFlush(call, t, !ended.isEmpty() || failed != null, out)) {
      return;
    }
    out.send(
        call.replyTo(),
        new BlockDevice.Submitted(
            t, rounds.queuedBefore(cpu) + mine, ended, failed == null ? List.of() : failed));
  }

  /**
   * The requests null_poll found end: each by blk_mq_end_request, or, with a batch (5.17), those
   * without an error by blk_mq_end_request_batch ({@code blk_mq_add_to_batch} refuses the rest).
   */
  private void onRqsPolled(NullBlkActor.PolledRqs m, Call call, Outbox out) {
    int cpu = call.cpu();
    List<Request> alone = m.rqs();
    List<Request> batch = List.of();
    if (features.pollBatch() && callers.batched(cpu)) {
      alone = new ArrayList<>();
      batch = new ArrayList<>();
      for (Request rq : m.rqs()) {
        (rq.error() == 0 ? batch : alone).add(rq);
      }
    }
    RequestEnds.Ended e = ends.oneByOne(cpu, alone, m.atPs());
    List<Bio> ended = e.bios();
    long t = m.atPs() + ends.cost(charger, call, alone.size(), e);
    t += wakeSleepers(call, alone.size(), t, out);
    if (!batch.isEmpty()) {
      RequestEnds.Ended b = ends.batch(cpu, batch, m.atPs());
      ended.addAll(b.bios());
      t += ends.batchCost(charger, call, features.iostats(), b) + ends.freeCost(charger, call, b);
      t += wakeSleepers(call, batch.size(), t, out);
    }
    out.send(call.replyTo(), new BlockDevice.Polled(t, ended));
  }

  private void onEndRequests(NullBlkActor.TimersEnded m, Call call, Outbox out) {
    RequestEnds.Ended e = ends.oneByOne(call.cpu(), m.rqs(), m.atPs());
    List<Bio> ended = e.bios();
    long t = m.atPs() + ends.cost(charger, call, m.rqs().size(), e);
    t += wakeSleepers(call, m.rqs().size(), t, out);
    t = rounds.restartAfterIrq(call, t, ended, out);
    if (t >= 0) {
      // The interrupt runs on the CPU that armed the timer; its bios end there, whoever submitted
      // them.
      out.send(callers.irqEnds(call.cpu()), new BlockDevice.IrqEnded(t, ended));
    }
  }

  /** A task sleeps for a tag ({@link SbqWaitState#blkMqGetTagSleep}): {@code Slept}. */
  private void sleepForTag(Call call, List<Bio> bios, long t, KernelFn[] path, Outbox out) {
    long at = waits.blkMqGetTagSleep(call.cpu(), call.what(), call, bios, t, path);
    out.send(call.replyTo(), new BlockDevice.Slept(at, List.copyOf(bios)));
  }

  /**
   * The task that found no tag before its plug's flush sleeps now ({@link
   * SbqWaitState#sleepsAfterFlush}): {@code Slept}, and {@code Woken} if a free woke it meanwhile.
   *
   * @return whether it sleeps: no {@code Submitted} for it then
   */
  private boolean sleepsAfterFlush(Call call, long t, boolean ended, Outbox out) {
    SbqWaitState.FlushSleep s =
        waits.sleepsAfterFlush(call.cpu(), call.what(), t, ended, HctxPaths.TAG_SLEEP_PATH);
    if (s == null) {
      return false;
    }
    out.send(call.replyTo(), new BlockDevice.Slept(s.atPs(), s.bios()));
    if (s.woken()) {
      out.send(call.replyTo(), new BlockDevice.Woken(s.atPs()));
    }
    return true;
  }

  /** {@link SbqWaitState#sbitmapQueueWakeUp}: the spins it ended, then the tasks it woke. */
  private long wakeSleepers(Call call, int freed, long t, Outbox out) {
    SbqWaitState.WakeUp<Call> w = waits.sbitmapQueueWakeUp(call.cpu(), call.what(), freed, t);
    for (SbqWaitState.SpinEnded<Call> e : w.spinsEnded()) {
      out.send(e.waiter().replyTo(), new BlockDevice.TagFreed(e.atPs(), e.spin()));
    }
    for (SbqWaitState.Woken<Call> k : w.woken()) {
      out.send(k.waiter().replyTo(), new BlockDevice.Woken(k.atPs()));
    }
    return w.ps();
  }

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

  /** mq-deadline's lock and waits, or null without a scheduler. */
  public SchedStats sched() {
    return sched == null ? null : sched.stats();
  }

  /** Times a task slept on this queue's tag wait queue. */
  public long tagSleeps() {
    return waits.sleeps();
  }

  /** The hardware context's books, and nothing of a call left half done here. */
  public void audit(blksim.queues.books.Books books) {
    hctx.audit(books);
    books.drained(
        waits.asleep() + waits.flushing() == 0,
        name() + ": tasks still asleep, or going to sleep, on the tag wait queue");
    books.drained(wouldBlock.isEmpty(), name() + ": bios that found no tag never ended (-EAGAIN)");
    books.drained(
        sched == null || sched.waiting() == 0,
        name() + ": requests left on hctx->dispatch, waiting for a driver tag");
    books.drained(rounds.idle(), name() + ": a call that kblockd ran the queue for never finished");
  }
}

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
import blksim.queues.block.blk_mq.Continuation;
import blksim.queues.block.blk_mq.EndRequest;
import blksim.queues.block.blk_mq.FlushPlugList;
import blksim.queues.block.blk_mq.HctxFeatures;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Poll;
import blksim.queues.block.blk_mq.RunWork;
import blksim.queues.block.blk_mq.SubmitBio;
import blksim.queues.block.blk_mq_sched.BlkMqSched;
import blksim.queues.block.blk_mq_sched.SchedStats;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.PathCosts;
import blksim.queues.kernel.sched.TaskOnCpu;

/**
 * The actor of a blk-mq hardware queue ({@link HwCtx}): a submitter's {@code submit_bio} of a batch
 * of bios ({@link SubmitBio}), the plug's flush to the driver's {@code queue_rq} and its return
 * ({@link FlushPlugList}), kblockd's runs ({@link RunWork}), and, when a CPU polls, {@code
 * blk_mq_poll} into the driver ({@link Poll}) and the end of what it found ({@link EndRequest}).
 * Each command goes to the model; what the tag wait queue told tasks on the way ({@link
 * SbqWaitState.Caller#told}) goes out to them, then what the model returns ({@link Continuation})
 * as the message; work is charged to the calling CPU. What the queue keeps of a call is its task's
 * ({@link TaskOnCpu}): tasks that share a CPU sleep, are woken and are answered each for itself.
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

  /** Each task's call while the driver has it, and where each CPU's interrupts end. */
  private final Callers callers = new Callers();

  private final BlkMqSched sched;

  private final SbqWaitState<Call> waits;

  private final RunWork runWork;
  private final EndRequest ends;
  private final FlushPlugList flush;
  private final SubmitBio submit;
  private final Poll poll;

  public HwCtxActor(
      SimRef<Command> self,
      HwCtx hctx,
      SimRef<NullBlkActor.Command> driver,
      PathCosts costs,
      BooksSettings books,
      HctxFeatures features) {
    super(self.name(), Command.class);
    this.hctx = hctx;
    this.driver = driver;
    this.charger = new Charger(costs, name());
    this.sched =
        hctx.elevator() == null
            ? null
            : new BlkMqSched(
                hctx,
                charger,
                costs.lineTransferPs(),
                features.endsInQueueRq(),
                RunWork.KBLOCKD_PATH);
    this.waits = new SbqWaitState<>(hctx.tags(), charger);
    this.runWork = new RunWork(hctx, charger, sched);
    this.ends = new EndRequest(hctx, charger, books, features.iostats(), runWork);
    this.flush = new FlushPlugList(hctx, charger, sched, ends, runWork);
    this.submit = new SubmitBio(name(), hctx, features, charger, sched, flush);
    this.poll = new Poll(ends, features.pollBatch());
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
      Call c = s.call();
      SbqWaitState.Caller<Call> w = waits.caller(c, c.task(), c.what());
      Continuation next =
          submit.blkMqSubmitBio(c.task(), c.what(), s.atPs(), s.bios(), s.plugNrIos(), w);
      submitted(c, w, next, out);
    } else if (m.command() instanceof BlockDevice.TagRetry r) {
      Call c = r.call();
      SbqWaitState.Caller<Call> w = waits.caller(c, c.task(), c.what());
      submitted(c, w, submit.blkMqGetTag(c.task(), c.what(), r.atPs(), r.bios(), w), out);
    } else if (m.command() instanceof BlockDevice.SpinFor f) {
      if (waits.spin(f.call(), f.untilPs(), f.spin())) {
        out.send(f.call().replyTo(), new BlockDevice.TagFreed(f.atPs(), f.spin()));
      }
    } else {
      BlockDevice.PollBio p = (BlockDevice.PollBio) m.command();
      send(p.call(), poll.blkMqPoll(p.atPs(), p.batch()), out);
    }
  }

  /** A submission's next step: its plug's flush goes to the driver for {@code call}. */
  private void submitted(
      Call call, SbqWaitState.Caller<Call> waited, Continuation next, Outbox out) {
    tell(waited, out);
    if (next instanceof Continuation.QueueRqs) {
      callers.remember(call);
    }
    send(call, next, out);
  }

  /**
   * The driver's answer goes to the caller whose execution it carries (one call a task at once), or
   * to the interrupt path of its CPU.
   */
  private void onDriverReply(FromDriver m, Outbox out) {
    Call call = callers.answered(name(), m.reply().exec());
    TaskOnCpu task = call.task();
    int cpu = call.cpu();
    SbqWaitState.Caller<Call> w = waits.caller(call, task, call.what());
    Continuation next;
    if (m.reply() instanceof NullBlkActor.Queued q) {
      next =
          flush.queueRqReturned(
              task,
              call.what(),
              q.atPs(),
              q.count(),
              q.completed(),
              q.viaCompleteRequest(),
              q.busy(),
              q.requeued(),
              w);
    } else if (m.reply() instanceof NullBlkActor.PolledRqs p) {
      next = poll.blkMqAddToBatch(cpu, call.what(), p.rqs(), callers.batched(task), p.atPs(), w);
    } else {
      NullBlkActor.TimersEnded e = (NullBlkActor.TimersEnded) m.reply();
      next = ends.blkMqEndRequestInIrq(task, call.what(), e.rqs(), e.atPs(), w);
    }
    tell(w, out);
    send(call, next, out);
  }

  /**
   * What the tag wait queue told tasks during a call, to each in turn: {@code Slept}, {@code
   * Woken}, or {@code TagFreed} for a spin it ended.
   */
  private static void tell(SbqWaitState.Caller<Call> waited, Outbox out) {
    for (SbqWaitState.Answer<Call> a : waited.told()) {
      if (a instanceof SbqWaitState.Slept<Call> s) {
        out.send(s.waiter().replyTo(), new BlockDevice.Slept(s.atPs(), s.bios()));
      } else if (a instanceof SbqWaitState.Woken<Call> k) {
        out.send(k.waiter().replyTo(), new BlockDevice.Woken(k.atPs()));
      } else {
        SbqWaitState.SpinEnded<Call> e = (SbqWaitState.SpinEnded<Call>) a;
        out.send(e.waiter().replyTo(), new BlockDevice.TagFreed(e.atPs(), e.spin()));
      }
    }
  }

  /** What the model returned, as the message to its component, for {@code call}. */
  private void send(Call call, Continuation next, Outbox out) {
    if (next instanceof Continuation.QueueRqs q) {
      NullBlkActor.Exec exec =
          new NullBlkActor.Exec(call.cpu(), call.slot(), q.what(), call.interrupts());
      out.send(driver, new NullBlkActor.QueueRqs(q.atPs(), hctx.index(), q.rqs(), exec));
    } else if (next instanceof Continuation.PollQueue p) {
      callers.polls(call, p.batch());
      out.send(driver, new NullBlkActor.PollQueue(p.atPs(), hctx.index(), call.exec()));
    } else if (next instanceof Continuation.Submitted s) {
      out.send(
          call.replyTo(),
          new BlockDevice.Submitted(s.atPs(), s.count(), s.ended(), s.wouldBlock()));
    } else if (next instanceof Continuation.Polled p) {
      out.send(call.replyTo(), new BlockDevice.Polled(p.atPs(), p.ended()));
    } else if (next instanceof Continuation.IrqEnded e) {
      out.send(callers.irqEnds(call.cpu()), new BlockDevice.IrqEnded(e.atPs(), e.ended()));
    }
    // Continuation.Asleep: the tag wait queue's Slept told the task
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
    books.drained(flush.idle(), name() + ": bios that found no tag never ended (-EAGAIN)");
    books.drained(
        sched == null || sched.waiting() == 0,
        name() + ": requests left on hctx->dispatch, waiting for a driver tag");
    books.drained(
        runWork.idle(), name() + ": a call that kblockd ran the queue for never finished");
  }
}

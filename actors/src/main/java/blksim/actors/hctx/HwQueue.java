package blksim.actors.hctx;

import blksim.actors.cpu.Cpu;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.actors.nullblk.NullBlkDevice;
import blksim.config.BooksSettings;
import blksim.config.CostProfile;
import blksim.queues.bio.Bio;
import blksim.queues.blkmq.HwCtx;
import blksim.queues.blkmq.Plug;
import blksim.queues.blkmq.Request;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import java.util.ArrayList;
import java.util.List;

/**
 * The actor of a blk-mq hardware queue ({@link HwCtx}): {@code blk_mq_submit_bio} for a batch of
 * bios (a request and tag each, gathered in a plug), dispatch of the plug to the driver's {@code
 * queue_rq}, and, when a CPU polls, {@code blk_mq_poll} into the driver and {@code
 * blk_mq_end_request} of what it found, which frees the tags. Work is charged to the calling CPU.
 */
public final class HwQueue extends AbstractComponent<HwQueue.Command> {

  /** Everything a hardware queue understands. */
  public sealed interface Command extends SimMessage
      permits SubmitBios, RqsQueued, Poll, RqsPolled {}

  /**
   * Who called: the CPU whose execution this is, and where the call returns.
   *
   * @param cpu the calling CPU's number
   */
  public record Call(int cpu, SimRef<Cpu.Command> replyTo) {}

  /** {@code submit_bio} of each bio, under one plug. */
  public record SubmitBios(long atPs, Call call, List<Bio> bios) implements Command {}

  /** The driver queued {@code count} requests of {@code call}. */
  public record RqsQueued(long atPs, Call call, int count) implements Command {}

  /** {@code bio_poll} of this queue on behalf of {@code call}. */
  public record Poll(long atPs, Call call) implements Command {}

  /** The driver's poll found {@code rqs}, completed. */
  public record RqsPolled(long atPs, Call call, List<Request> rqs) implements Command {}

  private final SimRef<Command> self;
  private final HwCtx hctx;
  private final SimRef<NullBlkDevice.Command> driver;
  private final CostStep submitBio;
  private final CostStep dispatch;
  private final CostStep poll;
  private final CostStep endRequest;
  private final CostLedger ledger = new CostLedger();
  private boolean leakOneTag;

  public HwQueue(
      SimRef<Command> self,
      HwCtx hctx,
      SimRef<NullBlkDevice.Command> driver,
      CostProfile profile,
      BooksSettings.Break breakOnPurpose) {
    super(self.name());
    this.self = self;
    this.hctx = hctx;
    this.driver = driver;
    this.submitBio = CostStep.of(profile, "blk_mq_submit_bio");
    this.dispatch = CostStep.of(profile, "blk_mq_flush_plug_list");
    this.poll = CostStep.of(profile, "blk_mq_poll");
    this.endRequest = CostStep.of(profile, "blk_mq_end_request");
    this.leakOneTag = breakOnPurpose == BooksSettings.Break.LEAK_TAG;
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(SubmitBios.class, this::onSubmitBios)
        .on(
            RqsQueued.class,
            (m, out) -> out.send(m.call().replyTo(), new Cpu.BiosQueued(m.atPs(), m.count())))
        .on(Poll.class, this::onPoll)
        .on(RqsPolled.class, this::onRqsPolled)
        .build();
  }

  private void onSubmitBios(SubmitBios m, Outbox out) {
    int cpu = m.call().cpu();
    Plug plug = new Plug();
    for (Bio bio : m.bios()) {
      Request rq = hctx.allocRequest(cpu, bio);
      if (rq == null) {
        throw new InvariantBroken(
            name() + ": no free tag for a request; tag exhaustion is not modelled yet");
      }
      plug.add(rq);
    }
    long t = m.atPs() + ledger.charge(cpu, submitBio, m.bios().size());
    List<Request> rqs = new ArrayList<>(m.bios().size());
    for (List<Request> flush : plug.finish()) {
      for (Request rq : flush) {
        hctx.dispatched(rq);
        rqs.add(rq);
      }
    }
    t += ledger.charge(cpu, dispatch, rqs.size());
    out.send(driver, new NullBlkDevice.QueueRqs(t, hctx.index(), rqs, self, m.call()));
  }

  private void onPoll(Poll m, Outbox out) {
    long t = m.atPs() + ledger.charge(m.call().cpu(), poll, 1);
    out.send(driver, new NullBlkDevice.PollQueue(t, hctx.index(), self, m.call()));
  }

  /** blk_mq_end_request_batch: each request's bio ends, then its tag is freed. */
  private void onRqsPolled(RqsPolled m, Outbox out) {
    int cpu = m.call().cpu();
    List<Bio> ended = new ArrayList<>(m.rqs().size());
    for (Request rq : m.rqs()) {
      Bio bio = rq.bio();
      bio.setStatus(0);
      ended.add(bio);
      if (leakOneTag) {
        leakOneTag = false;
        continue;
      }
      hctx.freeRequest(rq, cpu);
    }
    long t = m.atPs() + ledger.charge(cpu, endRequest, m.rqs().size());
    out.send(m.call().replyTo(), new Cpu.Polled(t, ended));
  }

  public HwCtx hctx() {
    return hctx;
  }

  public CostLedger ledger() {
    return ledger;
  }
}

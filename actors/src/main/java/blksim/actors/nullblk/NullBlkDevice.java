package blksim.actors.nullblk;

import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Charger;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.actors.hctx.HwQueue;
import blksim.devices.nullblk.NullBlk;
import blksim.queues.blkmq.Request;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import java.util.ArrayList;
import java.util.List;

/**
 * The actor of a null_blk device ({@link NullBlk}): the driver side of its hardware queues, {@code
 * null_queue_rq} and {@code null_poll}. The work is charged to the CPU whose call it is.
 */
public final class NullBlkDevice extends AbstractComponent<NullBlkDevice.Command> {

  /** Everything the device understands. */
  public sealed interface Command extends SimMessage permits QueueRqs, PollQueue {}

  /** {@code queue_rq} of each request, started, on hardware queue {@code hctx}. */
  public record QueueRqs(
      long atPs, int hctx, List<Request> rqs, SimRef<HwQueue.Command> replyTo, HwQueue.Call call)
      implements Command {}

  /** {@code null_poll} of hardware queue {@code hctx}. */
  public record PollQueue(long atPs, int hctx, SimRef<HwQueue.Command> replyTo, HwQueue.Call call)
      implements Command {}

  private final NullBlk nullb;
  private final Charger charger;

  public NullBlkDevice(NullBlk nullb, PathCosts costs) {
    super(nullb.diskName());
    this.nullb = nullb;
    this.charger = new Charger(costs);
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(QueueRqs.class, this::onQueueRqs)
        .on(PollQueue.class, this::onPollQueue)
        .build();
  }

  private void onQueueRqs(QueueRqs m, Outbox out) {
    List<Request> completed = new ArrayList<>(0);
    boolean viaCompleteRequest = false;
    for (Request rq : m.rqs()) {
      NullBlk.Queued q = nullb.queueRq(m.hctx(), rq);
      if (q != NullBlk.Queued.ON_POLL_LIST) {
        completed.add(rq);
        viaCompleteRequest |= q == NullBlk.Queued.COMPLETE_REQUEST;
      }
    }
    long t =
        m.atPs()
            + charger.charge(
                m.call().cpu(), m.call().what(), KernelFn.NULL_QUEUE_RQ, m.rqs().size());
    out.send(
        m.replyTo(),
        new HwQueue.RqsQueued(t, m.call(), m.rqs().size(), completed, viaCompleteRequest));
  }

  private void onPollQueue(PollQueue m, Outbox out) {
    List<Request> found = new ArrayList<>();
    int n = nullb.poll(m.hctx(), found);
    long t = m.atPs() + charger.charge(m.call().cpu(), m.call().what(), KernelFn.NULL_POLL, n);
    out.send(m.replyTo(), new HwQueue.RqsPolled(t, m.call(), found));
  }

  public NullBlk nullBlk() {
    return nullb;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }
}

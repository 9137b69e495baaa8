package blksim.queues.block.blk_mq;

import blksim.config.BlksimSettings;
import blksim.config.BooksSettings;
import blksim.config.Scenario;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.blk_mq_sched.BlkMqSched;
import blksim.queues.block.blk_mq_tag.SbqWaitState;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostId;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.ArrayList;
import java.util.List;

/**
 * One hardware queue's models, wired as its actor wires them, with the queue's tag wait queue and
 * its scheduler when it has one: the bench the component tests of blk-mq run on. The task {@link
 * #SUBMITTER} submits on CPU 0 ({@link #TASK}); what the wait queue tells tasks during its calls is
 * in {@link #waits}.
 */
final class HwCtxModels {
  static final int CPU = 0;

  /** The submitter's task: the first of CPU 0. */
  static final TaskOnCpu TASK = new TaskOnCpu(CPU, 0);

  static final CpuTime SUBMIT = CpuTime.SUBMIT;

  /** The task that submits, as the tag wait queue knows it. */
  static final String SUBMITTER = "submitter";

  final HwCtx hctx;
  final Charger charger;
  final BlkMqSched sched;
  final SbqWaitState<String> sbq;

  /** The tag wait queue as the submitter's calls meet it. */
  final SbqWaitState.Caller<String> waits;

  final RunWork runWork;
  final EndRequest ends;
  final FlushPlugList flush;
  final SubmitBio submit;
  final Poll poll;
  private int nextBio;

  /** The place on CPU 1 of the next task {@link #asleep} puts to sleep. */
  private int nextSleeper;

  HwCtxModels(HwCtx hctx, HctxFeatures features) {
    this(hctx, features, new BooksSettings(BooksSettings.Break.NONE, 0));
  }

  HwCtxModels(HwCtx hctx, HctxFeatures features, BooksSettings books) {
    this.hctx = hctx;
    BlksimSettings s = new Scenario().settings();
    this.charger =
        new Charger(
            PathCosts.of(s.profile(), s.kernel(), new PathCosts.Knobs(true, true, true)), "test");
    this.sched =
        hctx.elevator() == null
            ? null
            : new BlkMqSched(
                hctx,
                charger,
                charger.costs().lineTransferPs(),
                features.endsInQueueRq(),
                RunWork.KBLOCKD_PATH);
    this.sbq = new SbqWaitState<>(hctx.tags(), charger);
    this.waits = sbq.caller(SUBMITTER, TASK, SUBMIT);
    this.runWork = new RunWork(hctx, charger, sched);
    this.ends = new EndRequest(hctx, charger, books, features.iostats(), runWork);
    this.flush = new FlushPlugList(hctx, charger, sched, ends, runWork);
    this.submit = new SubmitBio("hctx" + hctx.index(), hctx, features, charger, sched, flush);
    this.poll = new Poll(ends, features.pollBatch());
  }

  /** A poll queue of {@code nrTags} tags, index 1, without a scheduler. */
  static HwCtxModels pollQueue(int nrTags, HctxFeatures features) {
    return new HwCtxModels(new HwCtx(1, HctxType.POLL, nrTags, 1), features);
  }

  /**
   * A default queue of {@code nrRequests} tags under mq-deadline with {@code driverTags} driver
   * tags; {@code features.endsInQueueRq()} says whether the driver ends requests in queue_rq.
   */
  static HwCtxModels underMqDeadline(int nrRequests, int driverTags, HctxFeatures features) {
    return new HwCtxModels(
        new HwCtx(0, HctxType.DEFAULT, nrRequests, 1, null, driverTags), features);
  }

  /** {@code n} bios of 512 bytes, each at a sector of its own, none after another. */
  List<Bio> bios(int n) {
    List<Bio> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Bio bio = Bio.onStack(nextBio++);
      bio.setRange(8L * nextBio, 512);
      out.add(bio);
    }
    return out;
  }

  /** Bios of 512 bytes at {@code sectors}, in that order. */
  List<Bio> biosAt(long... sectors) {
    List<Bio> out = new ArrayList<>(sectors.length);
    for (long sector : sectors) {
      Bio bio = Bio.onStack(nextBio++);
      bio.setRange(sector, 512);
      out.add(bio);
    }
    return out;
  }

  /** {@code n} bios of 512 bytes, each starting where the one before ends. */
  List<Bio> sequentialBios(int n) {
    List<Bio> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Bio bio = Bio.onStack(nextBio++);
      bio.setRange(i, 512);
      out.add(bio);
    }
    return out;
  }

  /** {@code n} bios with REQ_NOWAIT. */
  List<Bio> nowaitBios(int n) {
    List<Bio> out = bios(n);
    out.forEach(Bio::setNowait);
    return out;
  }

  /** Task {@code who}, on CPU 1, asleep on the tag wait queue with a bio still to submit. */
  void asleep(String who) {
    sbq.caller(who, new TaskOnCpu(1, nextSleeper++), SUBMIT)
        .blkMqGetTagSleep(bios(1), 0, SubmitBio.TAG_SLEEP_PATH);
  }

  /** The tasks the submitter's calls woke, in order. */
  List<String> woken() {
    List<String> out = new ArrayList<>();
    for (SbqWaitState.Answer<String> a : waits.told()) {
      if (a instanceof SbqWaitState.Woken<String> w) {
        out.add(w.waiter());
      }
    }
    return out;
  }

  /** The sleeps the wait queue told the submitter of, in order. */
  List<SbqWaitState.Slept<String>> slept() {
    List<SbqWaitState.Slept<String>> out = new ArrayList<>();
    for (SbqWaitState.Answer<String> a : waits.told()) {
      if (a instanceof SbqWaitState.Slept<String> s) {
        out.add(s);
      }
    }
    return out;
  }

  /** The submission of {@code bios} on CPU 0 under a plug of {@code nrIos}. */
  Continuation submit(List<Bio> bios, int nrIos) {
    return submit.blkMqSubmitBio(TASK, SUBMIT, 0, bios, nrIos, waits);
  }

  /** The driver's queue_rq of {@code q} took them all and ended {@code completed} of them. */
  Continuation queued(Continuation.QueueRqs q, List<Request> completed) {
    return flush.queueRqReturned(
        TASK, q.what(), q.atPs(), q.rqs().size(), completed, false, List.of(), List.of(), waits);
  }

  /** Calls of {@code fn} charged to CPU 0 so far. */
  long calls(KernelFn fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU, CostId::streamName).get(fn.name());
    return e == null ? 0 : e.calls();
  }
}

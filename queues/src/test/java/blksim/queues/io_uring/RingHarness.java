package blksim.queues.io_uring;

import blksim.config.BlksimSettings;
import blksim.config.KernelSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One task's ring on CPU 0 with the reference profile's prices (no variation), and a task whose
 * scheduler and queues the test sets: what {@link IoUringEnter} and {@link Iopoll} run against in
 * these tests, without a CPU.
 */
final class RingHarness implements RingTask {
  static final int CPU = 0;
  static final int BS = 512;

  final SqRing sq;
  final CqRing cq;
  final IoRingCtx ring;
  final EnterLoop loop = new EnterLoop("cpu0");
  final Charger charger;
  final IoUringEnter enter;

  /** What {@link RingTask} answers. */
  boolean ksoftirqd;

  boolean resched;
  boolean queuePolls = true;

  /** When {@link #endSubmitted} was last asked, and of how many bios; what each costs there. */
  long endSubmittedAt = -1;

  int endSubmittedBios = -1;
  long endSubmittedPs = 0;
  int needReschedAsked;
  final Map<Integer, IoRingCtx> siblings = new HashMap<>();

  private int bios;
  private long off;

  /** An IOPOLL ring of O_DIRECT reads with registered files and buffers ({@code -p1 -F1 -B1}). */
  static RingHarness iopoll(int sqEntries, int cqEntries) {
    return new RingHarness(
        sqEntries, cqEntries, new IoUringEnter.Setup(true, true, false), true, 0);
  }

  RingHarness(
      int sqEntries, int cqEntries, IoUringEnter.Setup setup, boolean fixedFiles, int owner) {
    this.sq = new SqRing(sqEntries);
    this.cq = new CqRing(cqEntries);
    this.ring = new IoRingCtx(sq, cq, owner);
    PathCosts costs =
        PathCosts.of(
            BlksimSettings.defaults().profile(),
            new KernelSettings("", Set.of(), false),
            new PathCosts.Knobs(true, fixedFiles, true, 1, false, setup.nop()));
    this.charger = new Charger(costs, "cpu0");
    this.enter = new IoUringEnter(charger, CPU, ring, loop, this, setup);
  }

  @Override
  public boolean ksoftirqdPending() {
    return ksoftirqd;
  }

  @Override
  public boolean needResched(long t) {
    needReschedAsked++;
    return resched;
  }

  @Override
  public IoRingCtx ringOf(int owner) {
    return siblings.get(owner);
  }

  @Override
  public boolean queuePolls(IoKiocb req) {
    return queuePolls;
  }

  @Override
  public ForeignCompletions.Told endSubmitted(
      List<Bio> ended, long t, java.util.function.Consumer<IoKiocb> done) {
    endSubmittedAt = t;
    endSubmittedBios = ended.size();
    for (Bio bio : ended) {
      done.accept((IoKiocb) bio.owner());
    }
    return new ForeignCompletions.Told(t + endSubmittedPs * ended.size(), List.of());
  }

  /** User space writes and publishes {@code n} reads of {@code BS}, a fixed file's. */
  void prep(int n) {
    for (int i = 0; i < n; i++) {
      sq.tryClaim(new Sqe(Sqe.IORING_OP_READ_FIXED, Sqe.IOSQE_FIXED_FILE, 0, off, BS, 0, 0));
      off += BS;
    }
    sq.publish();
  }

  /** {@code n} bios fresh from their bio set, as the bio set's answer brings them. */
  List<Bio> bios(int n) {
    List<Bio> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Bio.onStack(bios++));
    }
    return out;
  }

  /**
   * io_uring_enter of {@code n} prepped reads, waiting for {@code minComplete}, up to their
   * submission: the bios allocated and set up.
   */
  EnterCall.SubmitBios submitted(int n, int minComplete) {
    prep(n);
    EnterCall.AllocBios alloc =
        (EnterCall.AllocBios) enter.ioUringEnter(new EnterArgs(n, minComplete, minComplete > 0), 0);
    return (EnterCall.SubmitBios) enter.bioAllocated(bios(alloc.nr()), alloc.atPs());
  }

  /** {@link #submitted}, and each request's submit_bio returned, issued. */
  EnterCall afterSubmission(int n, int minComplete) {
    EnterCall.SubmitBios s = submitted(n, minComplete);
    enter.submitBioReturned(s.reqs(), List.of());
    return enter.ioSubmitSqesReturned(s.atPs());
  }

  /** Calls of {@code fn} charged to the CPU so far. */
  long calls(KernelFn fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU, id -> id.toString()).get(fn.name());
    return e == null ? 0 : e.calls();
  }

  /** Time charged to {@code fn} so far, in ps. */
  long ps(KernelFn fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU, id -> id.toString()).get(fn.name());
    return e == null ? 0 : e.ps();
  }

  /** The price of one call of {@code fn}, in ps. */
  long price(KernelFn fn) {
    return charger.costs().step(fn).ps();
  }
}

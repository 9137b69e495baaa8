package blksim.queues.block.mq_deadline;

import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.time.SpinLock;
import java.util.List;

/**
 * mq-deadline's elevator operations ({@code mq_deadline.ops}, block/mq-deadline.c 5.16) as the CPUs
 * of a queue run them on its {@link MqDeadline}, each charged to the CPU that runs it: {@code
 * dd_bio_merge}, {@code dd_prepare_request}, {@code dd_insert_requests} and {@code
 * dd_dispatch_request}. All but {@code dd_prepare_request} hold {@code dd->lock}, the request
 * queue's, shared by every CPU that submits to it: a CPU that finds it held spins, one that takes
 * it after another moves its line over, and with it two lines of {@code struct deadline_data}
 * (docs/kernel.md section 12, "The lock").
 */
public final class MqDeadlineOps {
  /**
   * Lines of {@code struct deadline_data} (5.16) that a dispatch or insert writes besides the
   * lock's: {@code per_prio[DD_BE_PRIO]} spans bytes 96 to 191, whose second line holds the read
   * FIFO, {@code next_rq} and the counts, and {@code batching} is on the line before the lock's.
   * The sort tree's root (the first line) changes only when the root node does; the request queue's
   * {@code last_merge} and the hash buckets are left out.
   */
  public static final int DATA_LINES = 2;

  private final HwCtx hctx;
  private final MqDeadline dd;
  private final Charger charger;
  private final CostStep lockLine;
  private final CostStep dataLines;

  /** {@code dd->lock}. */
  private final SpinLock lock = SpinLock.interleaving("dd->lock");

  /** A request {@code dd_dispatch_request} took out, and when the call was done. */
  public record Dispatch(Request rq, long atPs) {}

  /**
   * @param hctx the queue, whose {@link HwCtx#elevator()} these run on
   * @param lineTransferPs what moving a cache line from another core costs
   */
  public MqDeadlineOps(HwCtx hctx, Charger charger, long lineTransferPs) {
    this.hctx = hctx;
    this.dd = hctx.elevator();
    this.charger = charger;
    this.lockLine = new CostStep(Contention.LINE_DD_LOCK, lineTransferPs);
    this.dataLines = new CostStep(Contention.LINES_DD_DATA, lineTransferPs);
  }

  /**
   * {@code dd_bio_merge} of each of {@code bios} bios the plug did not merge, each under the lock:
   * the lookups miss, the scheduler holding no request between submissions (docs/kernel.md section
   * 12, "Merges"). Priced at nothing (nomerges=2) it takes no lock.
   *
   * @return the time the calls took
   */
  public long ddBioMerge(int cpu, CpuTime what, int bios, long t) {
    long start = t;
    for (int i = 0; i < bios; i++) {
      long ps = charger.charge(cpu, what, KernelFn.DD_BIO_MERGE, 1);
      t += ps == 0 ? 0 : locked(cpu, what, t, ps) + ps;
    }
    return t - start;
  }

  /** {@code dd_prepare_request} of {@code n} requests set up ({@code blk_mq_rq_ctx_init}). */
  public long ddPrepareRequest(int cpu, CpuTime what, int n) {
    return charger.charge(cpu, what, KernelFn.DD_PREPARE_REQUEST, n);
  }

  /**
   * {@code dd_insert_requests} of one plug flush's {@code list} at {@code t}: the lock taken once,
   * each request into the sort tree ({@code dd_insert_request}, {@code elv_rb_add}'s levels) and
   * the FIFO.
   *
   * @return the time the call is done
   */
  public long ddInsertRequests(int cpu, CpuTime what, List<Request> list, long t) {
    long hold = charger.charge(cpu, what, KernelFn.DD_INSERT_REQUEST, list.size());
    int levels = 0;
    for (Request rq : list) {
      levels += hctx.insert(rq, t);
    }
    hold += charger.charge(cpu, what, KernelFn.ELV_RB_ADD, levels);
    long fixed = charger.charge(cpu, what, KernelFn.DD_INSERT_REQUESTS, 1);
    return t + locked(cpu, what, t, hold) + hold + fixed;
  }

  /**
   * {@code dd_dispatch_request} at {@code t}, under the lock: mq-deadline's next request ({@link
   * MqDeadline#dispatch}), or null, with no call, when it holds none ({@code dd_has_work}).
   */
  public Dispatch ddDispatchRequest(int cpu, CpuTime what, long t) {
    Request rq = dd.dispatch(t);
    if (rq == null) {
      return null;
    }
    long ps = charger.charge(cpu, what, KernelFn.DD_DISPATCH_REQUEST, 1);
    return new Dispatch(rq, t + locked(cpu, what, t, ps) + ps);
  }

  /**
   * Takes {@code dd->lock} at {@code t} for {@code holdPs}: the spin (CPU time "lock wait") and the
   * lines, charged.
   */
  private long locked(int cpu, CpuTime what, long t, long holdPs) {
    // taken from another CPU, the lock brings its line and the two data lines (held meanwhile)
    long lines = (1 + DATA_LINES) * lockLine.ps();
    SpinLock.Acquired a = lock.acquire(cpu, t, holdPs, lines);
    long ps = charger.lock(cpu, what, a, Contention.LOCK_WAIT_DD_LOCK, lockLine);
    return ps + charger.charge(cpu, what, dataLines, a.transferPs() > 0 ? DATA_LINES : 0);
  }

  /** {@code dd->lock}, with its counts. */
  public SpinLock lock() {
    return lock;
  }
}

package blksim.queues.io_uring;

import blksim.queues.block.blk_mq.SubmitBio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * The {@code -EAGAIN} loop of an io-wq worker on an IOPOLL ring that shares its thread's CPU, in
 * closed form. {@code io_wq_submit_work} reissues a request that found no tag after {@code
 * cond_resched()}, and only the thread's polling frees its tags; the thread cannot poll while the
 * worker runs. So the worker turns in the loop until its CPU's run queue asks it to reschedule (the
 * tick that ends its slice), another CPU frees a tag, or its CPU has something to take at the next
 * {@code cond_resched} (an interrupt, a tick, a wake-up that preempts it). Each turn is charged as
 * the functions it runs, without a message: with a CPU of its own the worker's retries are steps of
 * the model instead.
 */
public final class WorkerSpin {
  /** What ends a spin. */
  public enum End {
    /** A tag freed on the queue (or free at once). */
    TAG,
    /** The tick at which the run queue asks the worker to reschedule. */
    SLICE,
    /** Something the CPU takes at the worker's next {@code cond_resched}. */
    CUT
  }

  private final Charger charger;
  private final int cpu;
  private final KernelFn[] turn;
  private final long turnPs;
  private final LongUnaryOperator reschedTick;
  private boolean spinning;
  private long spin;
  private long startPs;
  private long slicesEnded;
  private long tagsSeen;
  private long turns;
  private long spunPs;

  /**
   * @param charger the worker's, which the turns are charged to, on {@code cpu}
   * @param allocCache whether the worker's bios come from the per-CPU cache (and go back to it)
   * @param reschedTick the tick at or after a time at which the CPU's run queue asks the running
   *     task to reschedule ({@link Long#MAX_VALUE}: none while it runs alone)
   */
  public WorkerSpin(Charger charger, int cpu, boolean allocCache, LongUnaryOperator reschedTick) {
    this.charger = charger;
    this.cpu = cpu;
    this.reschedTick = reschedTick;
    this.turn = turn(allocCache);
    long ps = 0;
    for (KernelFn fn : turn) {
      ps += charger.costs().callPs(fn);
    }
    this.turnPs = Math.max(1, ps);
  }

  /**
   * One more turn of the loop: io_issue_sqe to bio_wouldblock_error, the bio's -EAGAIN end, then
   * cond_resched. The functions are those of the worker's first try (IoWqWorker), but for
   * io_wq_submit_work itself, whose loop this is.
   */
  private static KernelFn[] turn(boolean allocCache) {
    List<KernelFn> fns = new ArrayList<>();
    fns.addAll(
        Arrays.asList(IoWorker.WORKER_ISSUE_PATH).subList(1, IoWorker.WORKER_ISSUE_PATH.length));
    if (allocCache) {
      fns.add(KernelFn.BIO_ALLOC_KIOCB);
    } else {
      fns.addAll(List.of(KernelFn.BIO_ALLOC_BIOSET, KernelFn.KMEM_CACHE_ALLOC));
    }
    fns.add(KernelFn.BIO_INIT);
    fns.addAll(Arrays.asList(IoRw.PAGES_PATH));
    fns.addAll(Arrays.asList(SubmitBio.NO_TAG_PATH));
    fns.addAll(Arrays.asList(IoWorker.WORKER_RETRY_PATH));
    fns.add(allocCache ? KernelFn.BIO_PUT : KernelFn.BIO_FREE);
    return fns.toArray(KernelFn[]::new);
  }

  /**
   * The worker's try at {@code t} found no tag: it turns in the loop from there, until its CPU says
   * what ends it ({@link #stop}).
   *
   * @return the spin's number, which what ends it names
   */
  long start(long t) {
    spinning = true;
    startPs = t;
    return ++spin;
  }

  /**
   * The tick at or after {@code t} at which the run queue asks the running task to reschedule, as
   * the CPU said when the worker was made ({@link Long#MAX_VALUE}: never, while it runs alone).
   */
  public long reschedTick(long t) {
    return reschedTick.applyAsLong(t);
  }

  /**
   * The spin ends at the first turn that sees what came at {@code at}; its turns are charged.
   *
   * @param id the spin that {@code at} ends
   * @return when its last turn ends, at its {@code cond_resched}, or -1 when the spin is over
   *     already (another end came first)
   */
  long stop(long id, long at, End why) {
    if (!spinning || id != spin) {
      return -1;
    }
    spinning = false;
    slicesEnded += why == End.SLICE ? 1 : 0;
    tagsSeen += why == End.TAG ? 1 : 0;
    if (at <= startPs) {
      return startPs; // need_resched was set already, or a tag was free: this turn sees it
    }
    long end = startPs;
    while (end < at) { // the turns' prices vary: as many as it takes
      long n = (at - end + turnPs - 1) / turnPs;
      turns += n;
      end += charger.charge(cpu, CpuTime.SUBMIT, turn, n);
    }
    spunPs += end - startPs;
    return end;
  }

  /** The spin under way (or the last one). */
  public long id() {
    return spin;
  }

  /** Slices that the tick ended while the worker turned in the loop. */
  public long slicesEnded() {
    return slicesEnded;
  }

  /** Spins that a tag freed by another CPU (or free at once) ended. */
  public long tagsSeen() {
    return tagsSeen;
  }

  /** Turns of the loop charged in closed form. */
  public long turns() {
    return turns;
  }

  /** The time they took, in ps. */
  public long spunPs() {
    return spunPs;
  }
}

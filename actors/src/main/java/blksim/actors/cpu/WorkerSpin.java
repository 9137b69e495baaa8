package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.block.blk_mq.SubmitBio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.kernel.sched.CfsSlice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The {@code -EAGAIN} loop of an io-wq worker on an IOPOLL ring that shares its thread's CPU, in
 * closed form. {@code io_wq_submit_work} reissues a request that found no tag after {@code
 * cond_resched()}, and only the thread's polling frees its tags; the thread cannot poll while the
 * worker runs. So the worker turns in the loop until the tick ends its slice ({@link CfsSlice}),
 * then gives the CPU back at its next {@code cond_resched}. Each turn after the first is charged as
 * the functions it runs, without a message: with a CPU of its own the worker's retries are steps of
 * the model instead, since another CPU's polling can free a tag between two of them.
 */
final class WorkerSpin {
  private final CfsSlice slice;
  private final Charger charger;
  private final int cpu;
  private final HostCpu host;
  private final KernelFn[] turn;
  private final long turnPs;
  private long pickedAtPs;
  private boolean threadEnded;
  private boolean spinning;
  private long spin;
  private long startPs;
  private long slicesEnded;
  private long tagsSeen;
  private long turns;
  private long spunPs;

  /**
   * @param slice the CPU's slice and ticks
   * @param charger the worker's, which the turns are charged to, on {@code cpu}
   * @param host the thread's CPU, which the worker shares
   * @param allocCache whether the worker's bios come from the per-CPU cache (and go back to it)
   */
  WorkerSpin(CfsSlice slice, Charger charger, int cpu, HostCpu host, boolean allocCache) {
    this.slice = slice;
    this.charger = charger;
    this.cpu = cpu;
    this.host = host;
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
        Arrays.asList(CpuPaths.WORKER_ISSUE_PATH).subList(1, CpuPaths.WORKER_ISSUE_PATH.length));
    if (allocCache) {
      fns.add(KernelFn.BIO_ALLOC_KIOCB);
    } else {
      fns.addAll(List.of(KernelFn.BIO_ALLOC_BIOSET, KernelFn.KMEM_CACHE_ALLOC));
    }
    fns.add(KernelFn.BIO_INIT);
    fns.addAll(Arrays.asList(CpuPaths.PAGES_PATH));
    fns.addAll(Arrays.asList(SubmitBio.NO_TAG_PATH));
    fns.addAll(Arrays.asList(CpuPaths.WORKER_RETRY_PATH));
    fns.add(allocCache ? KernelFn.BIO_PUT : KernelFn.BIO_FREE);
    return fns.toArray(KernelFn[]::new);
  }

  /**
   * The scheduler switched the worker in at {@code t}: its slice counts from there. After its
   * thread exited, the worker gives the CPU back at once each time it finds no tag, so that the
   * ring's teardown polls them free. (5.16 would hang there: with one task runnable no tick
   * preempts the worker, and the exiting task waits for io-wq in {@code io_wq_exit_workers}; commit
   * 9256b9371204 later ended that loop with {@code io_wq_worker_stopped}.)
   */
  void picked(long t, boolean threadEnded) {
    pickedAtPs = t;
    this.threadEnded = threadEnded;
  }

  /**
   * The worker's try at {@code t} found no tag on {@code to}: it turns in the loop from there,
   * until the queue says a tag was freed or its slice's tick ({@link Cpu.WorkerSliceEnds}) comes.
   */
  void start(
      long t,
      SimRef<BlockDevice.Command> to,
      BlockDevice.Call call,
      SimRef<Cpu.Command> self,
      Outbox out) {
    spinning = true;
    startPs = t;
    long id = ++spin;
    long tick = threadEnded ? t : reschedTickPs();
    if (tick > t) {
      out.send(to, new BlockDevice.SpinFor(t, call, tick, id));
    }
    out.send(self, new Cpu.WorkerSliceEnds(Math.max(t, tick), id));
  }

  /**
   * The spin ends at the first turn that sees what came at {@code at}: a freed tag, or the slice's
   * tick; its turns are charged.
   *
   * @param id the spin that {@code at} ends
   * @param bySlice whether the tick ended it
   * @return when its last turn ends, or -1 when the spin is over already (both came)
   */
  private long stop(long id, long at, boolean bySlice) {
    if (!spinning || id != spin) {
      return -1;
    }
    spinning = false;
    slicesEnded += bySlice && !threadEnded ? 1 : 0;
    tagsSeen += bySlice ? 0 : 1;
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

  /** The tick that ends the running worker's slice. */
  long reschedTickPs() {
    return slice.reschedTickPs(pickedAtPs);
  }

  /**
   * Spin {@code id} sees at {@code at} a freed tag, and tries it ({@code issue}); or the tick that
   * ends its slice, and gives the CPU back to the thread at {@code switchedOut}'s time: the thread
   * has its own slice before the worker, switched in again, issues.
   */
  void end(
      long id, long at, boolean bySlice, LongConsumer issue, LongConsumer switchedOut, Outbox out) {
    long t = stop(id, at, bySlice);
    if (t < 0) {
      return; // the other of the two ended it
    } else if (!bySlice && t < reschedTickPs()) {
      issue.accept(t);
      return;
    }
    long off = t + schedule();
    switchedOut.accept(off);
    host.preempt(off, slice.reschedTickPs(off), t2 -> issue.accept(t2 + schedule()), out);
  }

  private long schedule() {
    return charger.charge(cpu, CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
  }

  /** Slices that the tick ended while the worker turned in the loop. */
  long slicesEnded() {
    return slicesEnded;
  }

  /** Spins that a tag freed by another CPU (or free at once) ended. */
  long tagsSeen() {
    return tagsSeen;
  }

  /** Turns of the loop charged in closed form. */
  long turns() {
    return turns;
  }

  /** The time they took, in ps. */
  long spunPs() {
    return spunPs;
  }
}

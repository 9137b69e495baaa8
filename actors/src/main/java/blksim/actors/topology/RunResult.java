package blksim.actors.topology;

import blksim.queues.books.Books;
import blksim.queues.cost.CostLedger;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What a run leaves behind, gathered from its components once the engine has stopped.
 *
 * @param endPs virtual time of the last message
 * @param messages messages the engine delivered
 * @param latencyNs submit-to-reap latency of every I/O reaped, all submitters merged
 * @param ledger CPU time per CPU and step, all components merged
 * @param books the end-of-run books
 */
public record RunResult(
    long endPs,
    long messages,
    List<Submitter> submitters,
    Histogram latencyNs,
    CostLedger ledger,
    BioCache bioCache,
    List<Hctx> hctxs,
    List<Worker> workers,
    List<Dm> dms,
    Books books) {

  /**
   * A device-mapper device.
   *
   * @param targets targets in its table
   * @param dmIos dm_ios allocated, one per original bio submitted (again after a requeue)
   * @param cacheHits clones io_bs gave from a per-CPU cache
   * @param mempoolAllocs clones from io_bs's mempool and slab
   * @param requeuedPolledEagain polled originals requeued after their clone ended BLK_STS_AGAIN
   * @param resubmitted originals md->wq submitted again
   * @param suspendedNowait REQ_NOWAIT bios turned away with -EAGAIN while suspended
   * @param suspendedDeferred other bios deferred while suspended, until resume
   * @param dmsetupCpu the CPU of the dmsetup process that suspended it, or -1 when none did
   * @param dmsetup that process's time on its CPU and its run queue, or null when none
   */
  public record Dm(
      String name,
      int targets,
      long dmIos,
      long cacheHits,
      long mempoolAllocs,
      long requeuedPolledEagain,
      long resubmitted,
      long suspendedNowait,
      long suspendedDeferred,
      int dmsetupCpu,
      SchedInfo dmsetup) {}

  /**
   * A hardware queue's depth over the run.
   *
   * @param meanInUse tags in use, time-weighted mean over the run
   * @param maxInUse most tags in use at once
   * @param nrTags tags it has (hw_queue_depth)
   * @param dispatched requests handed to the driver
   * @param noTag bios that found no free tag and ended with -EAGAIN (REQ_NOWAIT)
   * @param tagWaits times a task whose bio had no REQ_NOWAIT slept on the tag wait queue
   * @param busy requests the driver returned BLK_STS_RESOURCE for (null_blk's requeue= fault
   *     injection), dispatched again by kblockd
   * @param requeued requests the driver gave to blk_mq_requeue_request, likewise
   * @param merged bios that went behind a request of the plug instead of taking one
   */
  public record Hctx(
      String name,
      double meanInUse,
      long maxInUse,
      int nrTags,
      long dispatched,
      long noTag,
      long tagWaits,
      long busy,
      long requeued,
      long merged,
      Sched sched) {}

  /**
   * A hardware queue's mq-deadline.
   *
   * @param driverTags the driver's tags, taken at dispatch
   * @param lockTaken {@code dd->lock} acquisitions
   * @param lockSpun acquisitions that found it held
   * @param lockWaitPs time spun on it in all
   * @param waited requests that found no driver tag and waited on {@code hctx->dispatch}
   * @param restarts queue runs kblockd made for {@code blk_mq_sched_restart}
   */
  public record Sched(
      int driverTags, long lockTaken, long lockSpun, long lockWaitPs, long waited, long restarts) {}

  /**
   * A thread's io-wq worker.
   *
   * @param thread the t/io_uring thread whose requests it issued
   * @param cpu the CPU it ran on
   * @param punted requests the thread punted to it
   * @param retries its issues that got -EAGAIN again
   * @param wakeUps times it was woken
   * @param lockWaitPs time it spun on the ring's uring_lock
   * @param tagSleeps times its blocking issue slept on a tag wait queue (a ring without IOPOLL)
   * @param spinSlices slices the tick ended while it spun for a tag on its thread's CPU (IOPOLL)
   * @param spinsEndedByTag spins that a tag freed by another CPU ended
   * @param spunPs the time of all its spins
   * @param sched what it ran and waited on its CPU's run queue (zeros if it never ran)
   */
  public record Worker(
      int thread,
      int cpu,
      long punted,
      long retries,
      long wakeUps,
      long lockWaitPs,
      long tagSleeps,
      long spinSlices,
      long spinsEndedByTag,
      long spunPs,
      SchedInfo sched) {}

  /**
   * One submitter's totals.
   *
   * @param index the t/io_uring thread
   * @param cpu the CPU it runs on
   * @param done SQEs accepted by io_uring_enter
   * @param calls io_uring_enter calls
   * @param reaps CQEs reaped by user space
   * @param completed I/Os the kernel completed: CQEs posted, reaped or not, and completions dropped
   *     at ring teardown
   * @param droppedAtExit completions nobody reaped because the thread had ended
   * @param fatal the lines t/io_uring printed before the thread stopped on an error, or none
   * @param meanInFlight I/Os between SQE stamp and reap, time-weighted mean over the run (not
   *     printed: the fuzzer's Little's-law oracle checks the latency histogram against it)
   * @param inFlightAtEnd I/Os stamped and never reaped by the end of the run
   * @param accepted SQEs the kernel accepted, {@code done} and those of a call that never returned
   * @param hung whether the thread hangs in a call that never returned, which {@code calls} lacks
   * @param latencyNs submit-to-reap latency of every I/O this submitter reaped
   * @param sched what the thread ran and waited on its CPU's run queue
   */
  public record Submitter(
      int index,
      int cpu,
      long done,
      long calls,
      long reaps,
      long completed,
      long droppedAtExit,
      List<String> fatal,
      double meanInFlight,
      long inFlightAtEnd,
      long accepted,
      boolean hung,
      Histogram latencyNs,
      SchedInfo sched) {}

  /**
   * A thread's scheduling, as /proc/PID/schedstat and /proc/PID/status give it.
   *
   * @param onCpuPs the time it ran ({@code sum_exec_runtime}), as of its last switch or tick
   * @param runDelayPs the time it waited on the run queue, runnable ({@code run_delay})
   * @param nvcsw switches out because it slept ({@code voluntary_ctxt_switches})
   * @param nivcsw switches out while runnable ({@code nonvoluntary_ctxt_switches})
   */
  public record SchedInfo(long onCpuPs, long runDelayPs, long nvcsw, long nivcsw) {}

  /**
   * The threads of each CPU that runs submitters, by CPU in the order the threads first name them,
   * each CPU's in thread order.
   */
  public java.util.Map<Integer, List<Submitter>> threadsByCpu() {
    java.util.Map<Integer, List<Submitter>> by = new java.util.LinkedHashMap<>();
    submitters.forEach(s -> by.computeIfAbsent(s.cpu(), k -> new java.util.ArrayList<>()).add(s));
    return by;
  }

  /**
   * Whether some CPU runs more than one task: submitter threads, a thread and its io-wq worker
   * (which has no CPU of its own), or a dmsetup process beside either.
   */
  public boolean sharedCpus() {
    return submitters.stream().map(Submitter::cpu).distinct().count() < submitters.size()
        || workers.stream().anyMatch(this::sharesCpu)
        || dms.stream().anyMatch(this::dmsetupShares);
  }

  /** Whether {@code cpu} runs more than one task: threads, io-wq workers, dmsetup processes. */
  public boolean shared(int cpu) {
    long threads = submitters.stream().filter(s -> s.cpu() == cpu).count();
    return threads
            + workers.stream().filter(w -> w.cpu() == cpu).count()
            + dms.stream().filter(d -> d.dmsetup() != null && d.dmsetupCpu() == cpu).count()
        > 1;
  }

  /** Whether the dmsetup process of {@code dm} shares its CPU with another task. */
  public boolean dmsetupShares(Dm dm) {
    return dm.dmsetup() != null && shared(dm.dmsetupCpu());
  }

  /**
   * Where bios came from.
   *
   * @param cacheHits allocations served by a per-CPU cache
   * @param mempoolAllocs allocations through bio_alloc_bioset (cache miss, or no cache)
   * @param pruned bios freed by bio_alloc_cache_prune
   * @param freedUncached bios put to the slab past a per-CPU cache, not marked for it
   */
  public record BioCache(long cacheHits, long mempoolAllocs, long pruned, long freedUncached) {}

  /** Whether {@code w} runs on its thread's CPU, having none of its own. */
  public boolean sharesCpu(Worker w) {
    return submitters.stream().anyMatch(sub -> sub.cpu() == w.cpu());
  }

  /** Every CPU that ran something: the submitters', then the io-wq workers'. */
  public List<Integer> busyCpus() {
    List<Integer> all = new java.util.ArrayList<>();
    submitters.stream().map(Submitter::cpu).filter(c -> !all.contains(c)).forEach(all::add);
    // a worker with no CPU of its own runs on its thread's, counted once
    workers.stream().map(Worker::cpu).filter(c -> !all.contains(c)).forEach(all::add);
    return all;
  }

  public long done() {
    return submitters.stream().mapToLong(Submitter::done).sum();
  }

  public long calls() {
    return submitters.stream().mapToLong(Submitter::calls).sum();
  }

  /** The calls that never returned: one for each thread that hangs in one. */
  public long hungCalls() {
    return submitters.stream().filter(Submitter::hung).count();
  }

  public long reaps() {
    return submitters.stream().mapToLong(Submitter::reaps).sum();
  }
}

package blksim.actors.topology;

import blksim.actors.cpu.IoWqWorker;
import blksim.actors.cpu.Task;
import blksim.actors.hctx.HwQueue;
import blksim.queues.blkmq.HwCtx;
import blksim.queues.sched.SchedEntity;
import blksim.queues.uring.Submitter;

/**
 * Each component's totals at the end of a run, read off it into the records of its {@link
 * RunResult}: a submitter's CPU, a hardware queue, an io-wq worker.
 */
final class RunTotals {
  private RunTotals() {}

  /** The totals of the submitter {@code task}, its mean in flight up to {@code endPs}. */
  static RunResult.Submitter submitter(Task task, long endPs) {
    Submitter sub = task.submitter();
    SchedEntity se = task.sched();
    return new RunResult.Submitter(
        task.submitterIndex(),
        task.cpu(),
        sub.done(),
        sub.calls(),
        sub.reaps(),
        task.completed(),
        task.ring().droppedAtExit(),
        sub.fatal(),
        sub.meanInFlight(endPs),
        sub.inFlightAtEnd(),
        task.accepted(),
        sub.hung(),
        task.latencyNs().copy(),
        new RunResult.SchedInfo(se.sumExecRuntime(), se.runDelay(), se.nvcsw(), se.nivcsw()));
  }

  /** The depth of {@code q}, its mean tags in use up to {@code untilPs}. */
  static RunResult.Hctx hctx(HwQueue q, long untilPs) {
    HwCtx h = q.hctx();
    return new RunResult.Hctx(
        q.name(),
        h.inUse().mean(untilPs),
        h.inUse().max(),
        h.tags().nrTags(),
        h.dispatchedCount(),
        h.noTagCount() - q.tagSleeps(),
        q.tagSleeps(),
        h.busyCount(),
        h.requeueCount(),
        h.mergedCount(),
        q.sched() == null
            ? null
            : new RunResult.Sched(
                q.sched().driverTags(),
                q.sched().lockTaken(),
                q.sched().lockSpun(),
                q.sched().lockWaitPs(),
                q.sched().waited(),
                q.sched().restarts()));
  }

  /** The totals of thread {@code t}'s io-wq worker {@code w}. */
  static RunResult.Worker worker(int t, IoWqWorker w) {
    return new RunResult.Worker(
        t,
        w.index(),
        w.wq().enqueued(),
        w.wq().retries(),
        w.wq().wakeUps(),
        w.lockWaitPs(),
        w.tagSleeps(),
        w.spinSlices(),
        w.spinsEndedByTag(),
        w.spunPs());
  }
}

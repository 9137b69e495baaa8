package blksim.actors.topology;

import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.NullBlkSettings;

/** The tags a null_blk queue gives requests, and how many of them one thread's I/Os hold. */
final class TagBudget {
  private TagBudget() {}

  /** The tags a request is allocated with: q->nr_requests, under mq-deadline the sched tags. */
  static int allocTags(BlksimSettings s) {
    return blksim.config.Elevator.of(s).tags(s).nrTags();
  }

  /**
   * How many tags one thread's I/Os hold on a raw null_blk queue at most. A polled request holds
   * its tag until a poll finds it (on a poll queue: without one, the bio is no longer polled), and
   * one with a timer (irqmode=2) or a fault injected until the timer or the fault ends: as many as
   * the thread has in flight. With irqmode 0 or 1 and no fault, null_blk ends each request in its
   * queue_rq ({@code end_cmd}, or {@code blk_mq_complete_request} run on the spot), so the tags of
   * a plug are free again when the plug has been flushed; on one hardware queue irqmode=1 leaves
   * them to ksoftirqd, which runs where the thread next schedules, before it submits again. Either
   * way at most one submission's batch ({@code -s}) is held at once.
   */
  static int heldByThread(BlksimSettings s, IoUringSettings u, NullBlkSettings n) {
    // under mq-deadline a request that waits on hctx->dispatch for a driver tag keeps its sched
    // tag until a restart dispatches it: with the threads' batches over the driver tags, as many
    // as a thread has in flight
    boolean dispatchWaits =
        blksim.config.Elevator.of(s).mqDeadline()
            && (long) u.threads() * Math.min(u.depth(), Math.max(1, u.batchSubmit()))
                > n.hwQueueDepth();
    boolean endsInQueueRq =
        (!u.polled() || n.pollQueues() == 0)
            && n.irqmode() != NullBlkSettings.IrqMode.TIMER
            && !n.timeout().enabled()
            && !n.requeue().enabled()
            && !dispatchWaits;
    return endsInQueueRq ? Math.min(u.depth(), u.batchSubmit()) : u.depth();
  }
}

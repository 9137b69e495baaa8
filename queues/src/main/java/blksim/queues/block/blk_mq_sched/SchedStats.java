package blksim.queues.block.blk_mq_sched;

/**
 * A hardware queue's mq-deadline at the end of a run.
 *
 * @param driverTags the driver's tags, taken at dispatch
 * @param lockTaken {@code dd->lock} acquisitions
 * @param lockSpun acquisitions that found it held
 * @param lockWaitPs time spun on it in all
 * @param waited requests that found no driver tag and waited on {@code hctx->dispatch}
 * @param restarts queue runs kblockd made for {@code blk_mq_sched_restart}
 */
public record SchedStats(
    int driverTags, long lockTaken, long lockSpun, long lockWaitPs, long waited, long restarts) {}

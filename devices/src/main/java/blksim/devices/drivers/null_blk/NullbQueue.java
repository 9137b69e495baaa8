package blksim.devices.drivers.null_blk;

import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.time.SpinLock;
import java.util.ArrayDeque;
import java.util.List;

/**
 * One hardware queue's driver data ({@code struct nullb_queue}, drivers/block/null_blk/main.c,
 * 5.16-6.6): on a poll queue the {@code poll_list} that {@code null_queue_rq} appends to and {@code
 * null_poll} splices, both under {@code poll_lock}; and {@code requeue_selection}, which alternates
 * the two answers of the {@code requeue} fault injection (docs/kernel.md 3.1, 3.3).
 */
final class NullbQueue {
  private final HctxType type;
  private final ArrayDeque<Request> pollList = new ArrayDeque<>();
  private final SpinLock pollLock;
  private long requeueSelection;

  NullbQueue(HctxType type, String pollLockName) {
    this.type = type;
    this.pollLock = new SpinLock(pollLockName);
  }

  /** {@code hctx->type}: whether this is a poll queue ({@code HCTX_TYPE_POLL}). */
  HctxType type() {
    return type;
  }

  /**
   * {@code spin_lock(&nq->poll_lock)}, taken by {@code cpu} at {@code atPs} and held {@code
   * holdPs}: {@code null_queue_rq} appends to the poll list under it, {@code null_poll} splices it.
   *
   * @param lineTransferPs what moving the lock's cache line from another CPU costs
   */
  SpinLock.Acquired lockPollList(int cpu, long atPs, long holdPs, long lineTransferPs) {
    return pollLock.acquire(cpu, atPs, holdPs, lineTransferPs);
  }

  /** {@code list_add_tail(&rq->queuelist, &nq->poll_list)}. */
  void addToPollList(Request rq) {
    pollList.addLast(rq);
  }

  /**
   * {@code list_splice_init(&nq->poll_list, &list)}: every request waiting, in the order queued,
   * onto {@code into}; the poll list is left empty.
   *
   * @return how many it moved
   */
  int splicePollList(List<Request> into) {
    int nr = pollList.size();
    for (Request rq = pollList.pollFirst(); rq != null; rq = pollList.pollFirst()) {
      into.add(rq);
    }
    return nr;
  }

  /** Requests waiting on the poll list. */
  int pollListSize() {
    return pollList.size();
  }

  /**
   * {@code should_requeue_request} fired: {@code nq->requeue_selection++}, and an odd count answers
   * {@code BLK_STS_RESOURCE} (blk-mq's busy path), an even one {@code blk_mq_requeue_request} (the
   * driver's requeue).
   *
   * @return whether this one is the busy path
   */
  boolean nextRequeueIsBusy() {
    return (++requeueSelection & 1) == 1;
  }
}

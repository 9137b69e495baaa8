package blksim.devices.drivers.null_blk;

import blksim.config.NullBlkSettings;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.QueueMap;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.books.Books;
import blksim.queues.time.SpinLock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Models one null_blk device in blk-mq mode ({@code struct nullb}, drivers/block/null_blk/main.c,
 * 5.16-6.6): its size, its hardware queues ({@code submit_queues} of type default, then {@code
 * poll_queues} of type poll, as {@code null_map_queues} lays them out) and, per poll queue, the
 * {@code poll_list} that {@code null_queue_rq} fills and {@code null_poll} drains.
 *
 * <p>A polled request completes, with no device time, the first time its queue is polled after
 * submission; {@code irqmode} and {@code completion_nsec} apply only to the default queues
 * (docs/kernel.md 3.3). What these cost the CPU that calls them is {@link NullMqOps}'s.
 */
public final class NullBlk {
  /** What {@link #queueRq} did with a request. */
  public enum Queued {
    /** Put on a poll queue's poll_list; it completes when the queue is polled. */
    ON_POLL_LIST,
    /** irqmode=0: completed at once with {@code end_cmd}. */
    ENDED_INLINE,
    /**
     * irqmode=1 with several hardware queues: {@code blk_mq_complete_request} completes it locally,
     * right away on this CPU.
     */
    COMPLETE_REQUEST,
    /**
     * irqmode=1 on a tag set of one hardware queue: {@code blk_mq_complete_request_remote} puts it
     * on this CPU's {@code blk_cpu_done} and raises BLOCK_SOFTIRQ; {@code blk_done_softirq} ends it
     * later ({@link #softirqCompleted}).
     */
    SOFTIRQ,
    /** irqmode=2: an hrtimer completes it {@code completion_nsec} later ({@link #timerExpired}). */
    TIMER,
    /**
     * The {@code timeout} fault injection picked it ({@code fake_timeout}): never completed;
     * blk-mq's timeout ends it {@code io_timeout} later ({@link #timerExpired}).
     */
    FAKE_TIMEOUT
  }

  /**
   * What {@link #queueRqs} did with a plug's worth of requests.
   *
   * @param onPollList requests appended to the poll queue's {@code poll_list}: only {@code
   *     null_poll} ends them
   * @param completed requests completed at once (irqmode 0 or 1)
   * @param viaCompleteRequest whether they completed through {@code blk_mq_complete_request}
   * @param timers the hrtimers armed (irqmode 2), with when each fires
   * @param locks each acquisition of the queue's {@code poll_lock}: the caller spun and pulled its
   *     line for these
   * @param lockedPs the time those acquisitions took, spin and line together
   * @param busy requests the {@code requeue} fault injection returned {@code BLK_STS_RESOURCE} for:
   *     blk-mq puts them back on the hardware queue's dispatch list
   * @param requeued requests it gave to {@code blk_mq_requeue_request}: on the queue's requeue list
   * @param raised requests put on the calling CPU's {@code blk_cpu_done}, BLOCK_SOFTIRQ raised
   */
  public record QueueBatch(
      List<Request> onPollList,
      List<Request> completed,
      boolean viaCompleteRequest,
      List<Timer> timers,
      List<SpinLock.Acquired> locks,
      long lockedPs,
      List<Request> busy,
      List<Request> requeued,
      List<Request> raised) {}

  /**
   * A timer armed for {@code rq} on the calling CPU, firing at {@code firesAtPs}: the command's
   * hrtimer ({@code null_cmd_end_timer}: {@code hrtimer_start(&cmd->timer, completion_nsec,
   * HRTIMER_MODE_REL)}), or, for a request the {@code timeout} fault injection picked, blk-mq's
   * request timeout ({@code io_timeout}).
   */
  public record Timer(long firesAtPs, Request rq) {}

  /**
   * What {@link #pollQueue} found.
   *
   * @param lock the acquisition of the queue's {@code poll_lock}
   */
  public record PollResult(List<Request> found, SpinLock.Acquired lock) {}

  private final int index;
  private final NullBlkSettings settings;
  private final long pollLockHoldPs;
  private final long lineTransferPs;
  private final QueueMap map;
  private final NullbQueue[] queues;
  private long queuedRqs;
  private long polledRqs;
  private long completedRqs;
  private long timersArmed;
  private FaultInjection requeue = FaultInjection.none();
  private FaultInjection timeout = FaultInjection.none();
  private final Set<Request> timingOut = Collections.newSetFromMap(new IdentityHashMap<>());
  private long timedOutRqs;
  private long softirqPending;
  private long busyRqs;
  private long requeuedRqs;

  /** A device whose poll_locks cost nothing to hold or to move: for tests of the queues alone. */
  public NullBlk(int index, NullBlkSettings settings) {
    this(index, settings, 0, 0);
  }

  /**
   * @param pollLockHoldPs how long {@code null_queue_rq} and {@code null_poll} hold {@code
   *     nq->poll_lock}
   * @param lineTransferPs what moving the lock's cache line from another CPU costs
   */
  public NullBlk(int index, NullBlkSettings settings, long pollLockHoldPs, long lineTransferPs) {
    this.index = index;
    this.settings = settings;
    this.pollLockHoldPs = pollLockHoldPs;
    this.lineTransferPs = lineTransferPs;
    this.map = QueueMap.nullBlk(settings.submitQueues(), settings.pollQueues());
    this.queues = new NullbQueue[settings.nrHwQueues()];
    for (int i = 0; i < queues.length; i++) {
      queues[i] =
          new NullbQueue(
              i < settings.submitQueues() ? HctxType.DEFAULT : HctxType.POLL,
              diskName() + "-hctx" + i + " poll_lock");
    }
  }

  /** {@code /dev/nullb<index>}. */
  public String diskName() {
    return "nullb" + index;
  }

  public int index() {
    return index;
  }

  /** {@code BLKGETSIZE64}. */
  public long sizeBytes() {
    return settings.sizeBytes();
  }

  /** {@code queue_logical_block_size}. */
  public int logicalBlockSize() {
    return settings.bs();
  }

  public QueueMap queueMap() {
    return map;
  }

  /** Hardware queues: submit_queues + poll_queues. */
  public int nrHwQueues() {
    return queues.length;
  }

  /** Type of hardware queue {@code hctx}. */
  public HctxType hctxType(int hctx) {
    return queues[hctx].type();
  }

  public NullBlkSettings settings() {
    return settings;
  }

  /** Arms the {@code timeout} fault injection of the module's parameter. */
  public void injectTimeouts(FaultInjection timeout) {
    this.timeout = timeout;
  }

  /** Arms the {@code requeue} fault injection of the module's parameter. */
  public void injectRequeues(FaultInjection requeue) {
    this.requeue = requeue;
  }

  /**
   * {@code null_queue_rq} for a request already started ({@code blk_mq_start_request}): a poll
   * queue keeps it on its poll list; a default queue completes it as {@code irqmode} says.
   */
  public Queued queueRq(int hctx, Request rq) {
    return queueRq(hctx, rq, false);
  }

  /**
   * {@code null_queue_rq} as above, with {@code cmd->fake_timeout}: a poll queue keeps the request
   * on its poll list all the same (5.18's {@code null_poll} completes it); a default queue leaves
   * it to blk-mq's timeout.
   */
  private Queued queueRq(int hctx, Request rq, boolean fakeTimeout) {
    NullbQueue nq = queues[hctx];
    if (nq.type() == HctxType.POLL) {
      nq.addToPollList(rq);
      queuedRqs++;
      return Queued.ON_POLL_LIST;
    }
    queuedRqs++;
    if (fakeTimeout) {
      timersArmed++;
      timingOut.add(rq);
      return Queued.FAKE_TIMEOUT;
    }
    if (settings.irqmode() == NullBlkSettings.IrqMode.TIMER) {
      timersArmed++;
      return Queued.TIMER;
    }
    rq.markComplete();
    if (completesInSoftirq()) {
      // blk_mq_complete_request_remote: not polled, submitted on this CPU, q->nr_hw_queues == 1
      softirqPending++;
      return Queued.SOFTIRQ;
    }
    completedRqs++;
    return settings.irqmode() == NullBlkSettings.IrqMode.NONE
        ? Queued.ENDED_INLINE
        : Queued.COMPLETE_REQUEST;
  }

  /** Whether irqmode=1 ends this device's requests in BLOCK_SOFTIRQ: one hardware queue. */
  public boolean completesInSoftirq() {
    return settings.completesInSoftirq();
  }

  /** {@code blk_done_softirq} took {@code rq} off its CPU's list: {@code null_complete_rq}. */
  public void softirqCompleted(Request rq) {
    if (softirqPending == 0) {
      throw new IllegalStateException("BLOCK_SOFTIRQ ran a request none raised");
    }
    softirqPending--;
    completedRqs++;
  }

  /**
   * {@code null_queue_rq} of each request of a plug on {@code hctx}, on {@code cpu}: the first
   * starts at {@code startPs} and each takes {@code queueRqPs}, and on a poll queue each adds to
   * the poll list under {@code nq->poll_lock}, which another CPU may hold; an hrtimer (irqmode 2)
   * is armed on {@code cpu} as its request's queue_rq ends and fires {@code completion_nsec} later.
   */
  public QueueBatch queueRqs(int hctx, List<Request> rqs, int cpu, long startPs, long queueRqPs) {
    NullbQueue nq = queues[hctx];
    boolean poll = nq.type() == HctxType.POLL; // where each goes, so each list is made once
    List<Request> onPollList = new ArrayList<>(poll ? rqs.size() : 0);
    boolean timed = settings.irqmode() == NullBlkSettings.IrqMode.TIMER;
    List<Request> completed = new ArrayList<>(poll || timed ? 0 : rqs.size());
    List<Timer> timers = new ArrayList<>(0);
    List<SpinLock.Acquired> locks = new ArrayList<>(rqs.size());
    List<Request> busy = new ArrayList<>(0);
    List<Request> requeued = new ArrayList<>(0);
    List<Request> raised = new ArrayList<>(0);
    boolean viaCompleteRequest = false;
    long locked = 0;
    long completionPs = settings.completionNsec() * 1000;
    for (int i = 0; i < rqs.size(); i++) {
      Request rq = rqs.get(i);
      boolean fakeTimeout = timeout.shouldFail(cpu);
      if (requeue.shouldFail(cpu)) {
        // should_requeue_request: alternate blk-mq's busy path and the driver's requeue.
        if (nq.nextRequeueIsBusy()) {
          busyRqs++;
          busy.add(rq);
        } else {
          requeuedRqs++;
          requeued.add(rq);
        }
        continue;
      }
      Queued q = queueRq(hctx, rq, fakeTimeout);
      if (q == Queued.FAKE_TIMEOUT) {
        timers.add(new Timer(startPs + (i + 1) * queueRqPs + settings.ioTimeoutNs() * 1000, rq));
      } else if (q == Queued.ON_POLL_LIST) {
        SpinLock.Acquired a =
            nq.lockPollList(cpu, startPs + i * queueRqPs + locked, pollLockHoldPs, lineTransferPs);
        onPollList.add(rq);
        locks.add(a);
        locked += a.waitPs() + a.transferPs();
      } else if (q == Queued.TIMER) {
        timers.add(new Timer(startPs + (i + 1) * queueRqPs + completionPs, rq));
      } else if (q == Queued.SOFTIRQ) {
        raised.add(rq);
      } else {
        completed.add(rq);
        viaCompleteRequest |= q == Queued.COMPLETE_REQUEST;
      }
    }
    return new QueueBatch(
        onPollList, completed, viaCompleteRequest, timers, locks, locked, busy, requeued, raised);
  }

  /** {@code null_poll} of {@code hctx} on {@code cpu} at {@code atPs}, under its poll_lock. */
  public PollResult pollQueue(int hctx, int cpu, long atPs) {
    SpinLock.Acquired a = queues[hctx].lockPollList(cpu, atPs, pollLockHoldPs, lineTransferPs);
    List<Request> found = new ArrayList<>();
    poll(hctx, found);
    return new PollResult(found, a);
  }

  /**
   * {@code null_poll}: splices the whole poll list of {@code hctx} and processes each request
   * ({@code null_process_cmd}: nothing to do for a read without memory backing).
   *
   * @param out receives the completed requests in submission order
   * @return how many it found
   */
  public int poll(int hctx, List<Request> out) {
    int from = out.size();
    int nr = queues[hctx].splicePollList(out);
    for (int i = from; i < out.size(); i++) {
      out.get(i).markComplete();
    }
    polledRqs += nr;
    return nr;
  }

  /** ETIMEDOUT: what {@code blk_status_to_errno(BLK_STS_TIMEOUT)} gives. */
  public static final int ETIMEDOUT = 110;

  /**
   * {@code null_cmd_timer_expired}: the request's timer fired; it completes. Or, for a request the
   * timeout fault injection picked, blk-mq's timeout fired: {@code null_timeout_rq} completes it
   * with {@code BLK_STS_TIMEOUT}.
   *
   * @return whether it timed out
   */
  public boolean timerExpired(Request rq) {
    if (timersArmed == 0) {
      throw new IllegalStateException("a timer expired with none armed");
    }
    timersArmed--;
    completedRqs++;
    rq.markComplete();
    if (timingOut.remove(rq)) {
      rq.setError(-ETIMEDOUT);
      timedOutRqs++;
      return true;
    }
    return false;
  }

  /** Requests blk-mq's timeout ended, after the timeout fault injection picked them. */
  public long timedOutRqs() {
    return timedOutRqs;
  }

  /** Requests the requeue fault injection returned BLK_STS_RESOURCE for. */
  public long busyRqs() {
    return busyRqs;
  }

  /** Requests the requeue fault injection handed to blk_mq_requeue_request. */
  public long requeuedRqs() {
    return requeuedRqs;
  }

  /** Faults the requeue fault injection made: each a busy or a requeued request. */
  public long requeueFaults() {
    return requeue.failures();
  }

  /** Requests waiting on {@code hctx}'s poll list. */
  public int pollListSize(int hctx) {
    return queues[hctx].pollListSize();
  }

  /** Checks that no request is left on a poll list. */
  public void audit(Books books) {
    for (int i = 0; i < queues.length; i++) {
      books.held(
          queues[i].pollListSize(), diskName() + ": requests left on hctx" + i + "'s poll_list");
    }
    books.drainedEqual(
        queuedRqs,
        polledRqs + completedRqs + softirqPending,
        diskName() + ": requests queued vs completed");
    books.held(timersArmed, diskName() + ": completion timers still armed");
    books.held(
        softirqPending, diskName() + ": requests left on a CPU's blk_cpu_done (BLOCK_SOFTIRQ)");
  }
}

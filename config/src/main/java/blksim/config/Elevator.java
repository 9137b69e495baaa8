package blksim.config;

/**
 * The I/O scheduler a null_blk request queue runs, as {@code elevator_get_default}
 * (block/elevator.c 5.16) picks it or {@code queue.scheduler} names it (docs/kernel.md section 12).
 *
 * @param mqDeadline whether blksim runs mq-deadline on the queue
 * @param note what the model line says of the choice, or "" when there is nothing to say
 */
public record Elevator(boolean mqDeadline, String note) {

  /** {@code BLKDEV_DEFAULT_RQ}: the scheduler's requests are twice the tags, at most twice this. */
  public static final int BLKDEV_DEFAULT_RQ = 128;

  private static final Elevator NONE = new Elevator(false, "");

  /**
   * The queue's scheduler.
   *
   * @throws ConfigError for mq-deadline named where blksim does not model it
   */
  public static Elevator of(BlksimSettings s) {
    String name = s.kernel().scheduler();
    NullBlkSettings n = s.nullBlk();
    int cpus = s.cpu().count();
    // null_blk clamps its queue counts to nr_cpu_ids; 5.15's has no poll queues
    int queues =
        Math.min(n.submitQueues(), cpus)
            + (s.kernel().nullBlkPoll() ? Math.min(n.pollQueues(), cpus) : 0);
    boolean named = name.equals("mq-deadline");
    if (!named && !(name.isEmpty() && queues == 1 && !n.noSched())) {
      return NONE;
    }
    if (named && queues > 1) {
      throw Limit.MQ_DEADLINE_QUEUES.refusal(
          "queue.scheduler = mq-deadline on "
              + queues
              + " hardware queues: blksim models mq-deadline on one hardware queue only"
              + " (null_blk submit_queues=1 poll_queues=0); accepted there: none");
    }
    long held = driverTagsHeld(s);
    if (held > n.hwQueueDepth()) {
      String why =
          held
              + " requests can hold null_blk's "
              + n.hwQueueDepth()
              + " driver tags at once (a dispatch waiting for a driver tag that no timer frees)";
      if (named) {
        throw Limit.MQ_DEADLINE_DRIVER_TAGS.refusal(
            "queue.scheduler = mq-deadline where "
                + why
                + ": not modelled yet; accepted: fewer threads, a smaller -s or -d, a larger"
                + " hw_queue_depth, or none");
      }
      return new Elevator(
          false,
          "one hardware queue, so the kernel would run mq-deadline: not modelled where "
              + why
              + "; blksim runs none");
    }
    return new Elevator(
        true,
        named
            ? "mq-deadline (queue.scheduler)"
            : "mq-deadline (one hardware queue: elevator_get_default)");
  }

  /** {@code q->nr_requests} under a scheduler ({@code blk_mq_init_sched}): the sched tags. */
  public static int nrRequests(int hwQueueDepth) {
    return 2 * Math.min(hwQueueDepth, BLKDEV_DEFAULT_RQ);
  }

  /** {@code BLKDEV_MIN_RQ}: {@code queue_requests_store} raises a smaller nr_requests to it. */
  public static final int BLKDEV_MIN_RQ = 4;

  /** {@code MAX_SCHED_RQ}: 16 * BLKDEV_MAX_RQ, the most sched tags nr_requests can grow to. */
  public static final int MAX_SCHED_RQ = 2048;

  /**
   * The tags the queue's requests are allocated from, after {@code queue.nr-requests}: how many,
   * and the depth their sbitmap was laid out for ({@code sbitmap_queue_resize} keeps the words of
   * the map it shrinks; {@code blk_mq_tag_update_depth} allocates a new map to grow sched tags).
   *
   * @param nrTags tags a request may take
   * @param mapDepth the depth that gave the sbitmap its words
   */
  public record Tags(int nrTags, int mapDepth) {}

  /**
   * The queue's allocation tags under this choice.
   *
   * @throws ConfigError for an nr_requests the kernel refuses
   */
  public Tags tags(BlksimSettings s) {
    int depth = s.nullBlk().hwQueueDepth();
    int initial = mqDeadline ? nrRequests(depth) : depth;
    int asked = s.kernel().nrRequests();
    if (asked == 0) {
      return new Tags(initial, initial);
    }
    int nr = Math.max(BLKDEV_MIN_RQ, asked);
    int most = mqDeadline ? MAX_SCHED_RQ : depth;
    if (most < BLKDEV_MIN_RQ) {
      // queue_requests_store raises any value to BLKDEV_MIN_RQ, which is above every tag there is
      throw new ConfigError(
          "queue.nr-requests = "
              + asked
              + ": null_blk's hw_queue_depth="
              + depth
              + " with no scheduler is below "
              + BLKDEV_MIN_RQ
              + " (BLKDEV_MIN_RQ), to which the kernel raises any value and then answers EINVAL;"
              + " accepted only 0, the kernel's");
    }
    if (nr > most) {
      throw new ConfigError(
          "queue.nr-requests = "
              + asked
              + ": above "
              + (mqDeadline
                  ? MAX_SCHED_RQ + " (MAX_SCHED_RQ) under mq-deadline"
                  : "null_blk's hw_queue_depth=" + depth + " with no scheduler")
              + ", the kernel answers EINVAL; accepted "
              + BLKDEV_MIN_RQ
              + " to "
              + most
              + ", or 0 for the kernel's");
    }
    return new Tags(nr, nr > initial ? nr : initial);
  }

  /**
   * How many driver tags the threads can hold at once. A queue run takes a driver tag for each
   * request it pulls out of mq-deadline before the driver's queue_rq sees the first, so a thread
   * holds a submission's batch ({@code -s}) while it dispatches; with a timer (irqmode=2) or a
   * fault the requests stay in the driver, as many as it has in flight ({@code -d}). io-wq's worker
   * adds one a thread when the sched tags can run out.
   */
  private static long driverTagsHeld(BlksimSettings s) {
    NullBlkSettings n = s.nullBlk();
    IoUringSettings u = s.ioUring();
    boolean stay = n.timeout().enabled() || n.requeue().enabled();
    long threads = u.threads();
    // a restart dispatches other threads' requests from the freeing CPU, which then ends them:
    // io_uring's go back to their rings; another thread's aio or sync read, or a DM clone that
    // ends in queue_rq under another CPU's call, would not
    boolean aioOrSync = u.syncIo() || u.aio();
    if (!stay && n.irqmode() == NullBlkSettings.IrqMode.TIMER) {
      return aioOrSync && threads > 1 ? threads * (u.syncIo() ? 1 : u.depth()) : 0;
    }
    if (!stay && !aioOrSync && s.dm().tables().isEmpty()) {
      return 0;
    }
    long perThread = stay ? u.depth() : Math.min(u.depth(), Math.max(1, u.batchSubmit()));
    int sched =
        s.kernel().nrRequests() == 0 ? nrRequests(n.hwQueueDepth()) : s.kernel().nrRequests();
    boolean punts = threads * u.depth() > Math.max(BLKDEV_MIN_RQ, sched);
    return threads * perThread + (punts ? threads : 0);
  }
}

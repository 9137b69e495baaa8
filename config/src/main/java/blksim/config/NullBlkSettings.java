package blksim.config;

/**
 * null_blk module parameters (drivers/block/null_blk/main.c) that the model reads.
 *
 * @param completionNsec {@code completion_nsec}, timer delay of irqmode=2, in ns
 * @param bs {@code bs}, logical block size in bytes
 * @param gb {@code gb}, device size in GiB
 * @param requeue {@code requeue}, fault injection in {@code null_queue_rq}
 * @param timeout {@code timeout}, fault injection in {@code null_queue_rq}
 * @param ioTimeoutNs the request timeout of the device's queue, {@code
 *     /sys/block/nullbN/queue/io_timeout} (null_blk's tag set sets {@code 5 * HZ})
 */
public record NullBlkSettings(
    int queueMode,
    int submitQueues,
    int pollQueues,
    int hwQueueDepth,
    IrqMode irqmode,
    long completionNsec,
    int bs,
    int gb,
    int nrDevices,
    boolean noSched,
    int homeNode,
    FaultAttr requeue,
    FaultAttr timeout,
    long ioTimeoutNs) {

  /** {@code enum null_irq_mode}: how a non-polled request completes. */
  public enum IrqMode {
    /** NULL_IRQ_NONE: completed inline in queue_rq. */
    NONE,
    /** NULL_IRQ_SOFTIRQ: blk_mq_complete_request. */
    SOFTIRQ,
    /** NULL_IRQ_TIMER: an hrtimer after completion_nsec. */
    TIMER
  }

  static NullBlkSettings from(SettingsReader r) {
    String p = "blksim.null-blk.";
    int bs = r.intIn(p + "bs", 1, 1 << 20);
    // null_blk: bs > PAGE_SIZE becomes PAGE_SIZE, then it is rounded down to a multiple of 512.
    bs = Math.max(512, Math.min(bs, 4096) / 512 * 512);
    return new NullBlkSettings(
        r.intIn(p + "queue-mode", 0, 2),
        r.intIn(p + "submit-queues", 1, 4096),
        r.intIn(p + "poll-queues", 0, 4096),
        r.intIn(p + "hw-queue-depth", 1, 10240),
        IrqMode.values()[r.intIn(p + "irqmode", 0, 2)],
        r.longIn(p + "completion-nsec", 0, 3_600_000_000_000L),
        bs,
        r.intIn(p + "gb", 1, 1 << 20),
        r.intIn(p + "nr-devices", 1, 1024),
        r.flag(p + "no-sched"),
        r.intIn(p + "home-node", -1, 1023),
        FaultAttr.parse("requeue", r.string(p + "requeue")),
        FaultAttr.parse("timeout", r.string(p + "timeout")),
        ioTimeout(r));
  }

  /**
   * The longest request timeout accepted: an hour, the model's picoseconds stay far from overflow.
   */
  static final long MAX_IO_TIMEOUT_NS = 3_600_000_000_000L;

  private static long ioTimeout(SettingsReader r) {
    long ns = r.durationNs("blksim.queue.io-timeout", 1000, RunSettings.MAX_RUNTIME_NS);
    if (ns > MAX_IO_TIMEOUT_NS) {
      throw new ConfigError(
          "blksim.queue.io-timeout = "
              + ns
              + " ns is out of range: accepted 1us to 1h (null_blk's default is 5s)");
    }
    return ns;
  }

  /**
   * These parameters with the queue counts null_blk applies ({@code null_validate_conf} clamps them
   * to {@code nr_cpu_ids}).
   */
  public NullBlkSettings withQueues(int submit, int poll) {
    return new NullBlkSettings(
        queueMode,
        submit,
        poll,
        hwQueueDepth,
        irqmode,
        completionNsec,
        bs,
        gb,
        nrDevices,
        noSched,
        homeNode,
        requeue,
        timeout,
        ioTimeoutNs);
  }

  /** These parameters with {@code irqmode} instead. */
  public NullBlkSettings withIrqmode(IrqMode mode) {
    return new NullBlkSettings(
        queueMode,
        submitQueues,
        pollQueues,
        hwQueueDepth,
        mode,
        completionNsec,
        bs,
        gb,
        nrDevices,
        noSched,
        homeNode,
        requeue,
        timeout,
        ioTimeoutNs);
  }

  /** Device size in bytes. */
  public long sizeBytes() {
    return (long) gb << 30;
  }

  /** nr_hw_queues of the tag set: submit_queues plus poll_queues. */
  public int nrHwQueues() {
    return submitQueues + pollQueues;
  }

  /**
   * Whether a request ends in BLOCK_SOFTIRQ, after its queue_rq: irqmode=1 on a tag set of one
   * hardware queue ({@code blk_mq_complete_request_remote}).
   */
  public boolean completesInSoftirq() {
    return irqmode == IrqMode.SOFTIRQ && nrHwQueues() == 1;
  }

  /**
   * Whether null_blk ends each request in its queue_rq: irqmode 0, or 1 on several hardware queues,
   * with no fault injected.
   */
  public boolean endsInQueueRq() {
    return irqmode != IrqMode.TIMER
        && !completesInSoftirq()
        && !timeout.enabled()
        && !requeue.enabled();
  }
}

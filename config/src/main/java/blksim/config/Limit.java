package blksim.config;

/**
 * A kind of run that blksim does not model yet, and refuses before the run in one line with exit
 * status 2 rather than run wrongly (docs/limits.md, "Not modelled yet, refused").
 *
 * <p>Each check that refuses such a run still composes its own line, which names the flags and
 * values that led to it; the line's kind is one of these, named where the check is made. Bad input,
 * which the kernel itself would refuse (EINVAL) or which names the values accepted, is not a limit.
 * {@code blksim limits} prints the list, by area, and docs/limits.md holds the same text.
 */
public enum Limit {
  BUFFERED_IO(Area.T_IO_URING, "buffered-io", "-O0 -p0: buffered reads through the page cache."),
  PASSTHROUGH(Area.T_IO_URING, "passthrough", "-u1: NVMe passthrough (uring_cmd)."),
  HUGETLBFS(Area.T_IO_URING, "hugetlbfs", "-H: buffers on hugetlbfs."),

  SCHEDULERS(
      Area.SCHEDULERS,
      "schedulers",
      "queue.scheduler = kyber or bfq: I/O schedulers other than none and mq-deadline."),
  MQ_DEADLINE_QUEUES(
      Area.SCHEDULERS,
      "mq-deadline-queues",
      "queue.scheduler = mq-deadline on more than one hardware queue: blksim models it on one"
          + " (submit_queues=1 poll_queues=0)."),
  MQ_DEADLINE_DRIVER_TAGS(
      Area.SCHEDULERS,
      "mq-deadline-driver-tags",
      "mq-deadline where requests can hold every driver tag (a fault, several -S1 or -a1 threads,"
          + " a DM device): a dispatch waiting for a driver tag that no timer frees; with \"\" blksim"
          + " runs none and the model line says so."),

  BIO_BASED(
      Area.NULL_BLK,
      "bio-based",
      "null_blk queue_mode=0: the bio-based null_blk; only queue_mode=2 (blk-mq) is modelled."),
  SPLITTING(
      Area.NULL_BLK,
      "splitting",
      "-b above 65536 bytes: reads that large, which the block layer may split into several bios."),

  DM_TARGETS(
      Area.DM,
      "dm-targets",
      "DM target types other than linear (striped, mirror, crypt, thin and the kernel's others)."),
  DM_ON_DM(Area.DM, "dm-on-dm", "a DM table whose target is another DM device (dm on dm)."),
  DM_SPLIT(
      Area.DM,
      "dm-split",
      "a table whose target boundary falls inside one -b read: bios split across targets."),
  DM_AND_BELOW(
      Area.DM,
      "dm-and-below",
      "a DM device and a device under it read in one run: a poll of one ending the other's bios."),
  DM_SHARED_DEVICE(
      Area.DM, "dm-shared-device", "two DM devices on one null_blk device read in one run."),
  DM_POLL_BEFORE_5_18(
      Area.DM,
      "dm-poll-before-5.18",
      "-p1 on a DM device with a kernel before 5.18: DM has no bio polling, the kernel clears"
          + " REQ_HIPRI and the reads complete by interrupt while io_uring spins."),
  DM_UNPOLLED_BELOW(
      Area.DM,
      "dm-unpolled-below",
      "-p1 on a DM device over null_blk without poll queues: dm_table_supports_poll fails, and DM's"
          + " requeue of unpolled clones is not modelled."),
  DM_SUSPEND_P0(
      Area.DM,
      "dm-suspend-p0",
      "a DM suspend with -p0: io-wq's blocking reissue of the bios it turns away."),
  DM_SUSPEND_TIMER(Area.DM, "dm-suspend-timer", "a DM suspend with null_blk irqmode=2."),
  DM_SUSPEND_LONG(
      Area.DM,
      "dm-suspend-long",
      "a DM suspend longer than 10 ms: an IOPOLL ring spinning through it."),
  DM_REQUEUE_TIMER(
      Area.DM,
      "dm-requeue-timer",
      "DM clones that can find no tag, with irqmode=2: requeued bios waiting for tags on the default queue"
          + " too."),
  DM_REQUEUE_TIMEOUT(
      Area.DM,
      "dm-requeue-timeout",
      "DM clones that can find no tag, with null_blk timeout=: an IOPOLL ring spinning until blk-mq's"
          + " timeout ends a requeued bio."),
  DM_REQUEUE_RACE(
      Area.DM,
      "dm-requeue-race",
      "DM clones requeued by more threads at once than a default queue has tags: a requeued bio"
          + " ending -EAGAIN, reissued by io-wq."),

  POLL_FAULT(
      Area.POLLING,
      "poll-fault",
      "-p1 on null_blk without poll queues with a fault injected (timeout=, requeue=): an IOPOLL"
          + " ring spinning until the interrupt that ends an unpolled bio."),
  POLL_LONG_TIMER(
      Area.POLLING,
      "poll-long-timer",
      "-p1 on null_blk without poll queues with irqmode=2 completion_nsec above 1 ms: each pass of"
          + " the spin until the timer's interrupt is a step of the model."),

  IO_WQ_BLOCKING_WAIT(
      Area.IO_WQ,
      "io-wq-blocking-wait",
      "-p0 with more I/Os in flight than a queue has tags, with a fault injected or under a DM"
          + " device: io-wq's blocking tag waits beside them."),
  IO_WQ_SCHEDULER(
      Area.IO_WQ,
      "io-wq-scheduler",
      "-p1 on null_blk without poll queues under mq-deadline where tags can run out: io-wq"
          + " reissuing an unpolled bio into the scheduler while the ring polls."),

  OUTSIDE_RING_NOP(
      Area.OUTSIDE_THE_RING,
      "outside-ring-nop",
      "-S1 or -a1 with -N1: the sync or aio loop reading the files that -N1 does not open."),
  OUTSIDE_RING_BUFFERED(
      Area.OUTSIDE_THE_RING,
      "outside-ring-buffered",
      "-S1 or -a1 with -O0: buffered reads through the page cache."),
  OUTSIDE_RING_DM(
      Area.OUTSIDE_THE_RING,
      "outside-ring-dm",
      "-S1 or -a1 on a DM device: sync or aio reads through device mapper."),
  OUTSIDE_RING_FAULT(
      Area.OUTSIDE_THE_RING,
      "outside-ring-fault",
      "-S1 or -a1 with a fault injected (timeout=, requeue=): a read waiting out its fault."),

  SYNC_SCHED_TAGS(
      Area.SYNC,
      "sync-sched-tags",
      "-S1 with more threads on a queue than sched tags under mq-deadline: a sync read sleeping"
          + " for a sched tag (without a scheduler it sleeps for a driver tag, which runs)."),

  AIO_TAG_SLEEP(
      Area.AIO,
      "aio-tag-sleep",
      "-a1 with more requests at once on a queue than tags, where they end in queue_rq (irqmode 0"
          + " or 1) or under mq-deadline: io_submit sleeping for a tag (with timers it runs).");

  /** The area a limit belongs to, the heading it is listed under. */
  public enum Area {
    T_IO_URING("t/io_uring modes"),
    SCHEDULERS("I/O schedulers"),
    NULL_BLK("null_blk"),
    DM("Device mapper"),
    POLLING("Polling and spinning waits"),
    IO_WQ("io-wq"),
    OUTSIDE_THE_RING("-S1 and -a1 (reads outside the ring)"),
    SYNC("-S1 (preadv2)"),
    AIO("-a1 (libaio)");

    private final String heading;

    Area(String heading) {
      this.heading = heading;
    }

    /** The heading the area's limits are listed under. */
    public String heading() {
      return heading;
    }
  }

  private final Area area;
  private final String id;
  private final String description;

  Limit(Area area, String id, String description) {
    this.area = area;
    this.id = id;
    this.description = description;
  }

  /** The area of the model this limit is in. */
  public Area area() {
    return area;
  }

  /** A short stable name in kebab-case, as {@code blksim limits} lists it. */
  public String id() {
    return id;
  }

  /** One line: what is refused and, where it is known, why. */
  public String description() {
    return description;
  }

  /**
   * The refusal of a run that falls under this limit.
   *
   * @param line the whole line printed, as the check composes it
   * @return the error to throw; its message is {@code line} unchanged
   */
  public ConfigError refusal(String line) {
    return new ConfigError(line);
  }

  /**
   * Refuses the run when {@code when} holds, with {@code what} followed by "is not modelled yet".
   *
   * @param what the case refused, as the check names it
   * @throws ConfigError when {@code when} holds
   */
  public void refuseIf(boolean when, String what) {
    if (when) {
      throw refusal(what + " is not modelled yet");
    }
  }
}

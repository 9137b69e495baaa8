package blksim.actors.topology;

import blksim.actors.block.Disk;
import blksim.actors.cpu.CpuConfig;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.CpuSettings;
import blksim.config.DmSettings;
import blksim.config.DmTable;
import blksim.config.Elevator;
import blksim.config.IoUringSettings;
import blksim.config.Limit;
import blksim.config.NullBlkSettings;
import blksim.queues.tiouring.FileAssignment;
import blksim.queues.tiouring.SubmitterFn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What the model can run today. Everything else is refused up front with one line that says what is
 * not modelled yet, rather than run wrongly; each refusal names its kind, a {@link Limit}, which
 * {@code blksim limits} lists.
 */
final class ModelSupport {
  private ModelSupport() {}

  /** A null_blk disk's name: nullb and its index, as null_add_dev gives it. */
  private static final Pattern NULLB = Pattern.compile("/dev/nullb(0|[1-9][0-9]{0,9})");

  /** A device-mapper disk's name: dm- and its minor. */
  static final Pattern DM = Pattern.compile("/dev/dm-(0|[1-9][0-9]{0,9})");

  /** The most faults in a row of every dispatch that a run is let to spend its time on. */
  static final int MAX_FAULTS_IN_A_ROW = 100_000;

  /** The largest block size sent as one bio (below null_blk's default max_sectors of 255). */
  static final int MAX_BLOCK_SIZE = 65536;

  /**
   * The longest timer (completion_nsec) an IOPOLL ring spins for on a queue without polling: 1 ms,
   * some 10^5 passes of io_do_iopoll, well below EnterLoop's bound on empty polls in a row.
   */
  static final long MAX_SPIN_NS = 1_000_000;

  /**
   * Checks the settings.
   *
   * @return where each thread runs and what it reads
   * @throws ConfigError naming the first setting that cannot be run
   */
  static Placement check(BlksimSettings s) {
    IoUringSettings u = s.ioUring();
    NullBlkSettings n = s.nullBlk();
    // -N1: nops, which read no file, whatever its device; and a ring without IOPOLL
    boolean reads = !u.nop() || u.syncIo() || u.aio();
    Limit.BUFFERED_IO.refuseIf(
        reads && !u.oDirect() && !u.polled(), "-O0 -p0: buffered I/O through the page cache");
    checkAio(s);
    String elevator = s.kernel().scheduler();
    Limit.SCHEDULERS.refuseIf(
        !elevator.isEmpty() && !blksim.config.KernelSettings.MODELLED_SCHEDULERS.contains(elevator),
        "queue.scheduler = "
            + elevator
            + ": an I/O scheduler other than "
            + String.join(" or ", new TreeSet<>(blksim.config.KernelSettings.MODELLED_SCHEDULERS)));
    blksim.config.Elevator.of(s).tags(s);
    checkSync(s);
    Limit.PASSTHROUGH.refuseIf(u.passthrough(), "-u1: NVMe passthrough");
    if (n.requeue().probability() == 100
        && n.requeue().interval() <= 1
        && (n.requeue().times() == -1 || n.requeue().times() > MAX_FAULTS_IN_A_ROW)) {
      throw new ConfigError(
          "null_blk requeue=: every dispatch turned away "
              + (n.requeue().times() == -1 ? "for ever" : n.requeue().times() + " times")
              + " (probability 100, interval 1) before any I/O completes: no I/O could complete;"
              + " give a probability below 100, an interval, or at most "
              + MAX_FAULTS_IN_A_ROW
              + " times");
    }
    Limit.HUGETLBFS.refuseIf(
        !u.hugetlbPath().isEmpty(), "-H " + u.hugetlbPath() + ": hugetlbfs buffers");
    if (n.queueMode() == 1) {
      // null_init refuses NULL_Q_RQ since the legacy request path was removed (5.0)
      throw new ConfigError(
          "null_blk queue_mode=1: the legacy request path is gone (null_init: \"legacy IO path is"
              + " no longer available\", -EINVAL); accepted 0 (bio-based) or 2 (blk-mq), of which"
              + " blksim models 2");
    }
    if (n.queueMode() == 0) {
      throw Limit.BIO_BASED.refusal(
          "null_blk queue_mode=0 (bio-based) is not modelled yet; only queue_mode=2 (blk-mq) is");
    }
    // Without poll queues a polled bio is unmarked and ends by null_blk's interrupt. With irqmode 0
    // or 1 and no fault it ends in queue_rq, before io_do_iopoll looks for it, or in BLOCK_SOFTIRQ
    // (one hardware queue), whose ksoftirqd runs at io_iopoll_check's mutex_lock; with a timer
    // (irqmode=2) the IOPOLL ring spins in io_do_iopoll, each bio_poll returning at once, until
    // the timer's interrupt ends it. A fault would leave it spinning for io_timeout or a requeue,
    // which is not modelled yet. (an IOPOLL ring: io_uring's reads; -S1 sleeps for an unpolled
    // bio, aio never polls)
    Limit.POLL_FAULT.refuseIf(
        SubmitterFn.of(u) == SubmitterFn.IO_URING
            && u.polled()
            && (n.pollQueues() == 0 || !s.kernel().nullBlkPoll())
            && (n.timeout().enabled() || n.requeue().enabled()),
        noPollQueues(s)
            + " with -p1 and a fault injected (timeout=, requeue=): an IOPOLL ring spinning until"
            + " the interrupt that ends an unpolled bio");
    // each pass of that spin is a step of the model: a timer much longer would take millions
    Limit.POLL_LONG_TIMER.refuseIf(
        SubmitterFn.of(u) == SubmitterFn.IO_URING
            && u.polled()
            && (n.pollQueues() == 0 || !s.kernel().nullBlkPoll())
            && n.irqmode() == NullBlkSettings.IrqMode.TIMER
            && n.completionNsec() > MAX_SPIN_NS,
        noPollQueues(s)
            + " with -p1 and irqmode=2 completion_nsec="
            + n.completionNsec()
            + ": an IOPOLL ring spinning for an unpolled bio's timer longer than "
            + MAX_SPIN_NS
            + " ns");
    if (reads && u.blockSize() % n.bs() != 0) {
      throw new ConfigError(
          "-b "
              + u.blockSize()
              + ": O_DIRECT reads of "
              + u.files().get(0)
              + " must be a multiple of its logical block size, "
              + n.bs()
              + " bytes (the kernel answers EINVAL)");
    }
    Limit.SPLITTING.refuseIf(
        reads && u.blockSize() > MAX_BLOCK_SIZE,
        "-b " + u.blockSize() + ": bios larger than " + MAX_BLOCK_SIZE + " bytes (splitting)");
    for (String f : u.files()) {
      device(f, n.nrDevices(), s.dm().tables().size());
    }
    // dm_table_supports_poll needs every device under a table to poll; without it the DM device
    // has no QUEUE_FLAG_POLL, and what DM's requeue then does with unpolled clones is not modelled
    Limit.DM_UNPOLLED_BELOW.refuseIf(
        reads
            && u.polled()
            && (n.pollQueues() == 0 || !s.kernel().nullBlkPoll())
            && u.files().stream().anyMatch(f -> DM.matcher(f).matches()),
        noPollQueues(s) + " under a DM device with -p1 (a DM table on devices that cannot poll)");
    List<List<Integer>> files;
    try {
      files = FileAssignment.assign(u.threads(), u.files().size());
    } catch (IllegalArgumentException e) {
      throw new ConfigError(
          u.files().size() + " files on " + u.threads() + " threads: " + e.getMessage());
    }
    CpuSettings cpus = s.cpu();
    List<Integer> cpuOf = new ArrayList<>();
    for (int t = 0; t < u.threads(); t++) {
      cpuOf.add(cpus.cpuOf(t));
    }
    // null_blk clamps its queue counts to nr_cpu_ids (null_init / null_validate_conf).
    NullBlkSettings clamped =
        n.withQueues(
            Math.min(n.submitQueues(), cpus.count()),
            s.kernel().nullBlkPoll() ? Math.min(n.pollQueues(), cpus.count()) : 0);
    checkDm(s, clamped);
    return new Placement(cpuOf, files, clamped);
  }

  /**
   * The CPU of each thread's io-wq worker, or none when no bio can find its hardware queue out of
   * tags: when every queue's tags cover the depths of all the threads that use it.
   *
   * @param cfgs each thread's configuration, which says which hardware queues it uses
   * @throws ConfigError when tags can run out and the case is not modelled
   */
  static List<Integer> workerCpus(BlksimSettings s, Placement plan, List<CpuConfig> cfgs) {
    IoUringSettings u = s.ioUring();
    int tags = allocTags(s);
    Map<String, Integer> load = new TreeMap<>();
    Set<String> underDm = new TreeSet<>();
    int held = heldByThread(s, u, plan.nullBlk());
    for (int t = 0; t < cfgs.size(); t++) {
      CpuConfig cfg = cfgs.get(t);
      Map<String, Integer> used = new TreeMap<>();
      for (Disk disk : cfg.files()) {
        List<String> queues = disk.hwQueues(plan.submitterCpus().get(t), cfg.iopoll());
        // a DM clone holds its tag until the device below ends it, whatever its queue
        int mine = disk.isBioBased() ? u.depth() : held;
        queues.forEach(h -> used.merge(h, mine, Math::max));
        if (disk.isBioBased()) {
          underDm.addAll(queues);
        }
      }
      used.forEach((h, n) -> load.merge(h, n, Integer::sum));
    }
    int most = load.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    boolean suspend = !s.dm().suspends().isEmpty();
    // A suspended DM device turns io_uring's REQ_NOWAIT bios away: io-wq reissues them, blocking
    // (md->deferred holds them until the resume), from a CPU of the worker's own or its thread's.
    List<Integer> forSuspend = suspend ? ownOrThreads(s, plan) : List.of();
    if (most <= tags || u.nop() || u.syncIo() || u.aio()) {
      // nops take no tag; sync and aio reads share their queues' tags as their checks say
      return forSuspend;
    }
    String why = why(plan, most, tags);
    NullBlkSettings nb = plan.nullBlk();
    // -p0: io-wq's blocking issue sleeps on the tag wait queue; its timers fire on its CPU. A fault
    // (timeout=, requeue=) on such a queue, or a DM device on it, is not modelled with it yet.
    Limit.IO_WQ_BLOCKING_WAIT.refuseIf(
        !u.polled() && (nb.timeout().enabled() || nb.requeue().enabled() || !underDm.isEmpty()),
        "-p0 with "
            + why
            + (underDm.isEmpty()
                ? " and a fault injected (timeout=, requeue=)"
                : " under a DM device")
            + " (io-wq's blocking tag waits with it)");
    boolean rawShort =
        load.entrySet().stream()
            .anyMatch(e -> e.getValue() > tags && !underDm.contains(e.getKey()));
    if (!rawShort) {
      // Only DM clones can find no tag: DM requeues them (dm_handle_requeue), io-wq never sees
      // them.
      dmShortOfTags(plan, cfgs, why, tags);
      return forSuspend;
    }
    // io-wq's reissue of an unpolled bio under mq-deadline can wait on hctx->dispatch for a
    // driver tag while the ring spins in io_iopoll_check: what restarts the queue then is not
    // modelled yet
    Limit.IO_WQ_SCHEDULER.refuseIf(
        u.polled() && plan.nullBlk().pollQueues() == 0 && Elevator.of(s).mqDeadline(),
        noPollQueues(s)
            + " with -p1, mq-deadline and "
            + why
            + " (io-wq reissuing a bio that is no longer polled, into the scheduler)");
    return ownOrThreads(s, plan);
  }

  /** What makes tags run out, in words, for a refusal. */
  private static String why(Placement plan, int most, int tags) {
    return most
        + " I/Os can be in flight on a hardware queue with "
        + (tags == plan.nullBlk().hwQueueDepth()
            ? "null_blk hw_queue_depth=" + tags + " tags"
            : tags
                + " tags to allocate from (queue nr_requests; hw_queue_depth="
                + plan.nullBlk().hwQueueDepth()
                + ")");
  }

  /**
   * The CPU of each thread's io-wq worker where it needs no CPU of its own: the CPUs with no
   * submitter go to the first threads' workers, and the others share their thread's CPU (the
   * scheduler wakes a worker on an idle CPU of the node, or on the waker's).
   */
  private static List<Integer> ownOrThreads(BlksimSettings s, Placement plan) {
    int threads = s.ioUring().threads();
    List<Integer> cpus = new ArrayList<>();
    for (int cpu = 0; cpu < s.cpu().count() && cpus.size() < threads; cpu++) {
      if (!plan.submitterCpus().contains(cpu)) {
        cpus.add(cpu);
      }
    }
    for (int t = cpus.size(); t < threads; t++) {
      cpus.add(plan.submitterCpus().get(t));
    }
    return cpus;
  }

  /** A null_blk without poll queues, as the user gave it: 5.15's, or poll_queues=0. */
  private static String noPollQueues(BlksimSettings s) {
    return s.kernel().nullBlkPoll()
        ? "null_blk poll_queues=0"
        : "--kernel 5.15's null_blk (no poll queues before 5.16)";
  }

  /** When only DM clones can find no tag: what of their requeue is not modelled yet. */
  private static void dmShortOfTags(Placement plan, List<CpuConfig> cfgs, String why, int tags) {
    Limit.DM_REQUEUE_TIMER.refuseIf(
        plan.nullBlk().irqmode() == NullBlkSettings.IrqMode.TIMER,
        "DM with "
            + why
            + " and irqmode=2 (requeued bios waiting for tags on the default queue too)");
    Limit.DM_REQUEUE_TIMEOUT.refuseIf(
        plan.nullBlk().timeout().enabled(),
        "DM with "
            + why
            + " and null_blk timeout= (an IOPOLL ring spinning until blk-mq's timeout ends a"
            + " requeued bio)");
    // md->wq resubmits one bio at a time and each completes in queue_rq, so a default queue runs
    // out only when more threads than it has tags resubmit to it at once.
    Map<String, Integer> resubmitters = new TreeMap<>();
    for (int t = 0; t < cfgs.size(); t++) {
      Set<String> read = new TreeSet<>();
      for (Disk disk : cfgs.get(t).files()) {
        if (disk.isBioBased()) {
          read.addAll(disk.hwQueues(plan.submitterCpus().get(t), false));
        }
      }
      read.forEach(h -> resubmitters.merge(h, 1, Integer::sum));
    }
    int racing = resubmitters.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    Limit.DM_REQUEUE_RACE.refuseIf(
        racing > tags,
        "DM with "
            + why
            + ", requeued by "
            + racing
            + " threads at once onto a default queue of "
            + tags
            + " tags (a requeued bio ending -EAGAIN, reissued by io-wq)");
  }

  /**
   * The CPU the dmsetup processes of DM suspends run on, or -1 when there is none: the idlest, as
   * the scheduler places a new task ({@code select_task_rq_fair}): the first with no task, else the
   * first that runs io-wq workers only (asleep but for the reads they retry), else the first of the
   * CPUs with the fewest threads.
   */
  static int dmsetupCpu(BlksimSettings s, Placement plan, List<Integer> workerCpus) {
    if (s.dm().suspends().isEmpty()) {
      return -1;
    }
    int best = 0;
    long fewest = Long.MAX_VALUE;
    for (int cpu = 0; cpu < s.cpu().count(); cpu++) {
      long load =
          (long) java.util.Collections.frequency(plan.submitterCpus(), cpu) * s.cpu().count()
              + java.util.Collections.frequency(workerCpus, cpu);
      if (load < fewest) {
        best = cpu;
        fewest = load;
      }
    }
    return best;
  }

  /**
   * Where the run's threads go.
   *
   * @param submitterCpus the CPU of each thread
   * @param submitterFiles each thread's files, as indices into the command line's files
   * @param nullBlk null_blk's parameters as the module applies them
   */
  record Placement(
      List<Integer> submitterCpus, List<List<Integer>> submitterFiles, NullBlkSettings nullBlk) {}

  /** Checks that {@code file} names a device of the run. */
  private static void device(String file, int nrDevices, int nrDm) {
    if (isNullBlk(file, nrDevices)) {
      return;
    }
    if (DM.matcher(file).matches() && Long.parseLong(file.substring(8)) < nrDm) {
      return;
    }
    throw new ConfigError(
        file
            + ": no such device: blksim models "
            + nullBlkNames(nrDevices)
            + (nrDm == 0
                ? ""
                : ", and /dev/dm-0"
                    + (nrDm > 1 ? " to /dev/dm-" + (nrDm - 1) : "")
                    + " (--dm-table)"));
  }

  /** Whether {@code path} is one of the null_blk devices. */
  static boolean isNullBlk(String path, int nrDevices) {
    return NULLB.matcher(path).matches() && Long.parseLong(path.substring(10)) < nrDevices;
  }

  /** The null_blk devices, as a message names them. */
  static String nullBlkNames(int nrDevices) {
    return "/dev/nullb0"
        + (nrDevices > 1 ? " to /dev/nullb" + (nrDevices - 1) : "")
        + " (null_blk nr_devices="
        + nrDevices
        + ")";
  }

  /**
   * Checks what the threads hold of each hardware queue's tags where a loop other than io_uring's
   * would sleep for one (-a1, -S1).
   *
   * @throws ConfigError naming the first case that cannot be run
   */
  static void checkQueues(BlksimSettings s, List<Integer> cpus, List<CpuConfig> cfgs) {
    checkSyncQueues(s, cpus, cfgs);
    checkAioQueues(s, cpus, cfgs);
  }

  // t/io_uring -a1 (libaio): reads whose requests end in queue_rq (irqmode 0 or 1), so that each
  // event is in the ring before io_submit returns. Where a task would sleep, or an interrupt end
  // an aio read, the case is refused by name.

  /** The settings alone; -S1 wins over -a1, as in t/io_uring. */
  private static void checkAio(BlksimSettings s) {
    IoUringSettings u = s.ioUring();
    if (!u.aio() || u.syncIo()) {
      return;
    }
    outsideTheRing(s, "-a1", "aio", "an aio read");
  }

  /**
   * What the threads hold of each hardware queue's tags: with irqmode 0 or 1 each request ends in
   * queue_rq as the plug is flushed, so a thread holds one io_submit's batch at most ({@code -s});
   * with timers, all it has in flight. A bio without REQ_NOWAIT that finds no tag sleeps in
   * blk_mq_get_tag: modelled with timers and no scheduler, refused otherwise.
   */
  private static void checkAioQueues(BlksimSettings s, List<Integer> cpus, List<CpuConfig> cfgs) {
    IoUringSettings u = s.ioUring();
    if (!u.aio() || u.syncIo()) {
      return;
    }
    int tags = allocTags(s);
    // a timer (irqmode=2) keeps each tag until it fires: all the thread has in flight
    boolean timer = s.nullBlk().irqmode() == NullBlkSettings.IrqMode.TIMER;
    int held = timer ? u.depth() : Math.min(u.depth(), Math.max(1, u.batchSubmit()));
    Map<String, Integer> load = new TreeMap<>();
    for (int t = 0; t < cfgs.size(); t++) {
      Map<String, Integer> mine = new TreeMap<>();
      for (Disk disk : cfgs.get(t).files()) {
        disk.hwQueues(cpus.get(t), false).forEach(h -> mine.put(h, held));
      }
      mine.forEach((h, n) -> load.merge(h, n, Integer::sum));
    }
    // with timers io_submit sleeps in blk_mq_get_tag until a timer's end frees a tag (HwCtxActor);
    // not modelled: a sleep whose flushed plug ends requests in queue_rq, and mq-deadline's
    boolean mqDeadline = blksim.config.Elevator.of(s).mqDeadline();
    for (Map.Entry<String, Integer> e : load.entrySet()) {
      Limit.AIO_TAG_SLEEP.refuseIf(
          e.getValue() > tags && (!timer || mqDeadline),
          "-a1 with "
              + e.getValue()
              + " requests at once on "
              + e.getKey()
              + " of "
              + tags
              + " tags: io_submit sleeping for a tag"
              + (mqDeadline ? " under mq-deadline" : " while its requests end in queue_rq"));
    }
  }

  // t/io_uring -S1 (preadv2, one read at a time per thread): a read whose bio ends in queue_rq
  // (irqmode 0 or 1) or by its timer (irqmode 2, the task sleeping until the interrupt), or that a
  // poll ends (its own thread's, or another's on a poll queue they share, which wakes it). A read
  // that finds no tag sleeps in blk_mq_get_tag until a freed tag wakes it; under mq-deadline, where
  // it would wait for a sched tag, the case is refused by name.

  /** The settings alone. */
  private static void checkSync(BlksimSettings s) {
    IoUringSettings u = s.ioUring();
    if (!u.syncIo()) {
      return;
    }
    outsideTheRing(s, "-S1", "sync", "a sync read");
  }

  /**
   * What a loop other than io_uring's ({@code flag}: -S1, -a1) does not run yet: the files -N1 does
   * not open, buffered reads, DM, faults.
   */
  private static void outsideTheRing(BlksimSettings s, String flag, String loop, String read) {
    IoUringSettings u = s.ioUring();
    NullBlkSettings n = s.nullBlk();
    Limit.OUTSIDE_RING_NOP.refuseIf(
        u.nop(),
        flag
            + " with -N1: t/io_uring's "
            + loop
            + " loop reading the files that -N1 does not open");
    Limit.OUTSIDE_RING_BUFFERED.refuseIf(
        !u.oDirect(), flag + " -O0: buffered reads through the page cache");
    Limit.OUTSIDE_RING_DM.refuseIf(
        u.files().stream().anyMatch(f -> DM.matcher(f).matches()),
        flag + " on a DM device: " + read + " through device mapper");
    Limit.OUTSIDE_RING_FAULT.refuseIf(
        n.timeout().enabled() || n.requeue().enabled(),
        flag + " with a fault injected (timeout=, requeue=): " + read + " waiting out its fault");
  }

  /**
   * More threads on a queue than tags under mq-deadline: a sync read has no REQ_NOWAIT, and would
   * sleep for a sched tag, which is not modelled. Without a scheduler it sleeps for a driver tag.
   */
  private static void checkSyncQueues(BlksimSettings s, List<Integer> cpus, List<CpuConfig> cfgs) {
    boolean mqDeadline = blksim.config.Elevator.of(s).mqDeadline();
    if (!s.ioUring().syncIo() || !mqDeadline) {
      return;
    }
    int tags = allocTags(s);
    Map<String, Integer> threads = new TreeMap<>();
    for (int t = 0; t < cfgs.size(); t++) {
      CpuConfig cfg = cfgs.get(t);
      Set<String> mine = new TreeSet<>();
      for (Disk disk : cfg.files()) {
        mine.addAll(disk.hwQueues(cpus.get(t), cfg.hipri() && disk.pollsBlkMq()));
      }
      for (String h : mine) {
        threads.merge(h, 1, Integer::sum);
      }
    }
    for (Map.Entry<String, Integer> e : threads.entrySet()) {
      Limit.SYNC_SCHED_TAGS.refuseIf(
          e.getValue() > tags,
          "-S1 with "
              + e.getValue()
              + " threads on "
              + e.getKey()
              + " of "
              + tags
              + " sched tags: a sync read sleeping for a tag under mq-deadline");
    }
  }

  // Tags: what a null_blk queue gives requests, and how many of them one thread's I/Os hold.

  /** The tags a request is allocated with: q->nr_requests, under mq-deadline the sched tags. */
  private static int allocTags(BlksimSettings s) {
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
  private static int heldByThread(BlksimSettings s, IoUringSettings u, NullBlkSettings n) {
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

  // Device mapper: the checks dmsetup create makes once the devices are known
  // (device_area_is_invalid, validate_hardware_logical_block_alignment in dm-table.c), and what of
  // device mapper blksim runs; a bad table is refused as the kernel refuses it.

  /**
   * The longest suspend: an IOPOLL ring spins on the requests it holds, and a million polls in a
   * row that find nothing is what the model calls stuck.
   */
  static final long MAX_SUSPEND_NS = 10_000_000;

  /**
   * Checks every table against the null_blk devices, and the run's use of them.
   *
   * @throws ConfigError naming the device, the line and what is accepted
   */
  private static void checkDm(BlksimSettings s, NullBlkSettings n) {
    List<DmTable> tables = s.dm().tables();
    long devSectors = n.sizeBytes() / 512;
    int lbs = n.bs() / 512;
    IoUringSettings u = s.ioUring();
    int ioSectors = Math.max(1, u.blockSize() / 512);
    for (int minor = 0; minor < tables.size(); minor++) {
      String name = DmSettings.name(minor);
      for (DmTable.Target t : tables.get(minor).targets()) {
        String at = name + ": table line " + t.line() + ": ";
        if (t.device().startsWith("/dev/dm-")) {
          throw Limit.DM_ON_DM.refusal(at + t.device() + ": dm stacked on dm is not modelled yet");
        }
        if (!isNullBlk(t.device(), n.nrDevices())) {
          throw new ConfigError(
              at
                  + "no such device "
                  + t.device()
                  + ": blksim stacks dm-linear on "
                  + nullBlkNames(n.nrDevices()));
        }
        String dev = t.device().substring("/dev/".length());
        if (t.offset() + t.sectors() > devSectors) {
          throw new ConfigError(
              at
                  + dev
                  + " too small for target: start="
                  + t.offset()
                  + ", len="
                  + t.sectors()
                  + ", dev_size="
                  + devSectors
                  + " (sectors)");
        }
        if (t.offset() % lbs != 0) {
          throw new ConfigError(
              at
                  + "start="
                  + t.offset()
                  + " not aligned to h/w logical block size "
                  + n.bs()
                  + " of "
                  + dev);
        }
        if (t.start() % lbs != 0 || t.sectors() % lbs != 0) {
          throw new ConfigError(
              at
                  + "(start sect "
                  + t.start()
                  + " len "
                  + t.sectors()
                  + ") not aligned to h/w logical block size "
                  + n.bs());
        }
        if (t.start() % ioSectors != 0) {
          throw Limit.DM_SPLIT.refusal(
              at
                  + "a target boundary at sector "
                  + t.start()
                  + " inside a "
                  + u.blockSize()
                  + "-byte read: bios split across targets are not modelled yet");
        }
      }
    }
    for (int minor = 0; minor < tables.size(); minor++) {
      long bytes = tables.get(minor).sectors() * 512;
      if (u.files().contains("/dev/" + DmSettings.name(minor)) && bytes / u.blockSize() <= 1) {
        // t/io_uring's setup_file: max_blocks <= 1.
        throw new ConfigError(
            DmSettings.name(minor)
                + ": "
                + bytes
                + " bytes hold at most one -b "
                + u.blockSize()
                + " read: t/io_uring says 'Zero file/device size?' and exits");
      }
    }
    checkUse(s, tables);
    checkSuspends(s, n);
  }

  /** Suspend events: polled I/O (io-wq's IOPOLL reissue), no timers, done before the run ends. */
  private static void checkSuspends(BlksimSettings s, NullBlkSettings n) {
    long lastEnd = -1;
    for (DmSettings.Suspend e : s.dm().suspends()) {
      String what = "blksim.dm.suspend of " + DmSettings.name(e.minor());
      if (!s.ioUring().polled()) {
        throw Limit.DM_SUSPEND_P0.refusal(
            what + " with -p0: io-wq's blocking reissue is not modelled yet");
      }
      if (n.irqmode() == NullBlkSettings.IrqMode.TIMER) {
        throw Limit.DM_SUSPEND_TIMER.refusal(what + " with null_blk irqmode=2 is not modelled yet");
      }
      if (e.forNs() > MAX_SUSPEND_NS) {
        throw Limit.DM_SUSPEND_LONG.refusal(
            what
                + " for "
                + e.forNs()
                + " ns: a suspend of more than "
                + MAX_SUSPEND_NS / 1_000_000
                + " ms (an IOPOLL ring spinning through it) is not modelled yet");
      }
      if (e.atNs() >= s.run().runtimeNs() || e.forNs() >= s.run().runtimeNs() - e.atNs()) {
        throw new ConfigError(
            what
                + ": the resume, "
                + e.forNs()
                + " ns after the suspend at "
                + e.atNs()
                + " ns, comes after the run's end at "
                + s.run().runtimeNs()
                + " ns: what it defers would never complete");
      }
      if (e.atNs() < lastEnd) {
        throw new ConfigError(what + " at " + e.atNs() + " ns overlaps the suspend before it");
      }
      lastEnd = e.atNs() + e.forNs();
    }
  }

  /** What files on DM devices may not do yet. */
  private static void checkUse(BlksimSettings s, List<DmTable> tables) {
    IoUringSettings u = s.ioUring();
    Set<String> files = new TreeSet<>(u.files());
    Map<String, String> under = new TreeMap<>();
    for (int minor = 0; minor < tables.size(); minor++) {
      String dm = "/dev/" + DmSettings.name(minor);
      if (!files.contains(dm)) {
        continue;
      }
      if (u.polled() && !s.kernel().dmPoll()) {
        throw Limit.DM_POLL_BEFORE_5_18.refusal(
            "-p1 on "
                + dm
                + " with --kernel "
                + s.kernel().preset()
                + ": DM has no bio polling before 5.18, so the kernel clears REQ_HIPRI and the"
                + " reads complete by interrupt while io_uring spins; that is not modelled yet");
      }
      for (DmTable.Target t : tables.get(minor).targets()) {
        if (files.contains(t.device())) {
          throw Limit.DM_AND_BELOW.refusal(
              dm
                  + " and "
                  + t.device()
                  + " under it read in one run (a poll of one ending the other's bios)"
                  + " is not modelled yet");
        }
        String other = under.put(t.device(), dm);
        if (other != null && !other.equals(dm)) {
          throw Limit.DM_SHARED_DEVICE.refusal(
              other
                  + " and "
                  + dm
                  + " both on "
                  + t.device()
                  + " read in one run is not modelled yet");
        }
      }
    }
  }
}

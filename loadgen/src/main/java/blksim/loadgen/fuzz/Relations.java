package blksim.loadgen.fuzz;

import blksim.config.Patch;
import blksim.loadgen.report.RunReport;
import blksim.queues.cost.KernelFn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Metamorphic relations: what must hold between a case and a case derived from it, where no single
 * run has an expected figure. Each case is checked against one of them, chosen by its number, when
 * its precondition holds; they run on the sequential engine.
 *
 * <ul>
 *   <li>{@code patch-removes-work}: on one thread with no io-wq worker, a patch that only removes
 *       work (bdev-cache-in-file, bdev-inode-inline, end-request-fast-path) never lowers IOPS;
 *   <li>{@code double-cpus}: k threads, each on a CPU of its own with its own submit and poll hctx,
 *       and then 2k of them, give twice the IOPS within 1 % (calls at their prices: each CPU has
 *       streams of its own for interference.variation);
 *   <li>{@code longer-completion}: on null_blk's timer mode, a longer {@code completion_nsec} never
 *       raises IOPS;
 *   <li>{@code no-scheduler}: on one thread whose requests end without a timer (irqmode 0 or 1, in
 *       queue_rq or BLOCK_SOFTIRQ; no fault) with no io-wq worker, a queue that ran mq-deadline
 *       runs at least as fast with none;
 *   <li>{@code seed-free}: while no random source is active (one tag per hctx, see {@link
 *       #seedFree}), {@code --seed} changes nothing but the seed the summary names;
 *   <li>{@code sweep-as-alone}: a sweep file whose base is the case, over its seed and another,
 *       runs, and each point's {@code summary.json} is the JSON of the point's own command line run
 *       alone (but for the wall time).
 * </ul>
 */
final class Relations {
  /** The relations, in the order case numbers cycle through them. */
  static final List<String> NAMES =
      List.of(
          "patch-removes-work",
          "double-cpus",
          "longer-completion",
          "no-scheduler",
          "seed-free",
          "sweep-as-alone");

  /** Patches that only take work out of the path, whatever the CPU. */
  private static final List<Patch> REMOVE_WORK =
      List.of(Patch.BDEV_CACHE_IN_FILE, Patch.BDEV_INODE_INLINE, Patch.END_REQUEST_FAST_PATH);

  /** The most threads of the doubled side of {@code double-cpus}. */
  private static final int MAX_DOUBLED = 16;

  /**
   * {@code double-cpus} holds where the bios come from the per-CPU cache; it leaves out a run that
   * took more than one in this many from the slab.
   */
  private static final int SLAB_WARM_UP_SHARE = 16;

  private final Build sequential;

  Relations(Build sequential) {
    this.sequential = sequential;
  }

  /**
   * Checks case {@code index} against its relation.
   *
   * @param ran the case's own run on the sequential engine, which passed every other oracle
   */
  Verdict check(long index, Case c, Outcome ran) {
    String name = NAMES.get((int) Math.floorMod(index, (long) NAMES.size()));
    RunReport a = ran.report();
    Result result =
        switch (name) {
          case "patch-removes-work" ->
              a.result().submitters().size() == 1 && a.result().workers().isEmpty()
                  ? patchRemovesWork(index, c, a)
                  : Result.SKIP;
          case "double-cpus" -> doubleCpus(c);
          case "longer-completion" ->
              "2".equals(c.get("nb:irqmode")) ? longerCompletion(c) : Result.SKIP;
          case "no-scheduler" -> noScheduler(c, a);
          case "sweep-as-alone" -> sweepAsAlone(c);
          default -> seedFree(c, ran);
        };
    if (!result.applies()) {
      return new Verdict.Ran(null);
    }
    return result.failure() == null
        ? new Verdict.Ran(name)
        : new Verdict.Failed(name, result.failure());
  }

  /**
   * What a relation found.
   *
   * @param applies false when its precondition did not hold (or a derived case was refused)
   * @param failure what broke, or null
   */
  private record Result(boolean applies, String failure) {
    static final Result SKIP = new Result(false, null);
    static final Result HOLDS = new Result(true, null);

    static Result holdsIf(boolean holds, String otherwise) {
      return holds ? HOLDS : new Result(true, otherwise);
    }
  }

  private Result patchRemovesWork(long index, Case c, RunReport a) {
    Patch p = REMOVE_WORK.get((int) Math.floorMod(index / NAMES.size(), (long) REMOVE_WORK.size()));
    Set<String> patches = new LinkedHashSet<>();
    if (c.get("--patch") != null) {
      patches.addAll(List.of(c.get("--patch").split(",")));
    }
    patches.add(p.key());
    RunReport b = report(c.with("--patch", String.join(",", patches)));
    if (b == null) {
      return Result.SKIP;
    }
    return Result.holdsIf(
        b.iops() + quantum(c, a) >= a.iops(),
        p.key() + " only removes work, yet IOPS fell from " + a.iops() + " to " + b.iops());
  }

  /**
   * IOPS counts the SQEs of whole io_uring_enter calls within the runtime: one call's worth of
   * IOPS, the slack a comparison of two runs allows.
   */
  private static double quantum(Case c, RunReport a) {
    return a.result().calls() == 0
        ? 0
        : (double) a.result().done() / a.result().calls() * 1e6 / c.runtimeUs();
  }

  /**
   * mq-deadline only adds work to a request's path (its insert, dispatch, lock, driver tag and
   * finish); where nothing waits on a device or a worker, taking it away must not lower IOPS, by
   * more than one io_uring_enter call's SQEs.
   */
  private Result noScheduler(Case c, RunReport a) {
    boolean ranDeadline = a.result().hctxs().stream().anyMatch(h -> h.sched() != null);
    if (!ranDeadline
        || a.result().submitters().size() != 1
        || !a.result().workers().isEmpty()
        || "2".equals(c.get("nb:irqmode"))
        || c.get("nb:requeue") != null
        || c.get("nb:timeout") != null) {
      return Result.SKIP;
    }
    RunReport b = report(c.with("set:queue.scheduler", "none"));
    if (b == null || !b.result().workers().isEmpty()) {
      return Result.SKIP;
    }
    return Result.holdsIf(
        b.iops() + quantum(c, a) >= a.iops(),
        "mq-deadline only adds work, yet IOPS rose from " + b.iops() + " with none to " + a.iops());
  }

  /**
   * The doubled machine must make twice the IOPS within 1 %, plus what the measure itself cannot
   * resolve: IOPS counts the submissions of whole io_uring_enter calls made within the runtime, so
   * each thread may gain or lose one call at the end ({@code IOS/call} SQEs). The runs are at least
   * 1 ms long (0.5 ms at 16 CPUs), so that the cold start, when each CPU's first bios still come
   * from the shared slab, weighs little. Both sides round so: the ratio may be off by twice that.
   */
  private Result doubleCpus(Case c) {
    int k = c.get("-n") == null ? 1 : Integer.parseInt(c.get("-n"));
    if (2 * k > MAX_DOUBLED || c.get("nb:requeue") != null || c.get("nb:timeout") != null) {
      // null_blk's fault attribute counts every CPU's calls: the CPUs share it.
      return Result.SKIP;
    }
    if ("1".equals(c.get("-a")) && !"1".equals(c.get("-S"))) {
      // libaio's bios come from the mempool, through the slab whose list_lock the CPUs share
      return Result.SKIP;
    }
    long runtimeUs = Math.min(Math.max(c.runtimeUs(), 1000), 8000 / (2L * k));
    Case one = ownQueues(c, k, runtimeUs);
    RunReport a = report(one);
    if (a == null || !a.result().workers().isEmpty() || a.result().calls() == 0) {
      return Result.SKIP;
    }
    if (a.result().bioCache().mempoolAllocs() * SLAB_WARM_UP_SHARE > a.result().done()) {
      // a deep queue's first bios come from the slab, before the per-CPU cache holds any: in a
      // short run that warm-up weighs, and its CPUs share the slab's list_lock (-d1016 -s1 on
      // 1017 tags, 1 ms: half the bios, x1.975 on two CPUs)
      return Result.SKIP;
    }
    if (a.result().hctxs().size() == 1
        && !"0".equals(c.get("nb:irqmode"))
        && !"2".equals(c.get("nb:irqmode"))) {
      // one CPU's own queue is the tag set's only one (5.15's null_blk has no poll queues): its
      // requests end in BLOCK_SOFTIRQ, by ksoftirqd, where two queues end them in queue_rq
      return Result.SKIP;
    }
    Case two = ownQueues(c, 2 * k, runtimeUs);
    RunReport b = report(two);
    if (b == null) {
      return new Result(true, "the doubled case was refused: " + two.commandLine());
    }
    if (a.iops() == 0) {
      return Result.holdsIf(
          b.iops() == 0, "0 IOPS on " + k + " CPUs, " + b.iops() + " on " + 2 * k);
    }
    double perCall = (double) a.result().done() / a.result().calls();
    double doneB = Math.max(1, b.result().done());
    // Each side may be one call a thread off: 2k calls in B's count and k in A's, of half as many.
    double tolerance = 0.01 + 4 * k * perCall / doneB;
    double ratio = (double) b.iops() / a.iops();
    return Result.holdsIf(
        Math.abs(ratio / 2 - 1) <= tolerance,
        String.format(
            Locale.ROOT,
            "%d CPUs with their own hctx make %d IOPS, %d make %d: x%.4f, not x2 within %.2f %%",
            k,
            a.iops(),
            2 * k,
            b.iops(),
            ratio,
            100 * tolerance));
  }

  /**
   * {@code c} on {@code n} CPUs, a thread on each, each with its own submit and poll hctx, and
   * sharing nothing else: the per-CPU bio cache on, with 6.2's IRQ list when completions come by
   * interrupt, so that no bio goes through the slab, whose node {@code list_lock} CPUs do share;
   * and no I/O scheduler, whose lock and lists are the request queue's (on 5.15, one CPU's own
   * queue would be the queue's only one, and get mq-deadline).
   */
  private static Case ownQueues(Case c, int n, long runtimeUs) {
    // Each CPU's calls vary by streams of its own: k and 2k CPUs would not make an exact double.
    Case own = c.with("set:interference.variation.enabled", "false");
    if ("0".equals(c.get("-p"))) {
      Set<String> patches = new LinkedHashSet<>();
      if (c.get("--patch") != null) {
        patches.addAll(List.of(c.get("--patch").split(",")));
      }
      patches.add(Patch.BIO_CACHE_IRQ_LIST.key());
      own = own.with("--patch", String.join(",", patches));
    }
    return own.without("--taskset")
        .without("set:bioset.percpu-cache")
        .without("set:queue.scheduler")
        .with("nb:no_sched", "1")
        .without("nb:nr_devices")
        .with("--cpus", String.valueOf(n))
        .with("-n", String.valueOf(n))
        .with("nb:submit_queues", String.valueOf(n))
        .with("nb:poll_queues", String.valueOf(n))
        .with(Case.RUNTIME, runtimeUs + "us")
        .withFiles(List.of("/dev/nullb0"));
  }

  /**
   * A longer {@code completion_nsec} must not raise IOPS where the device's latency bounds them:
   * where every submitter waits for it ({@link #latencyBound}). Where the CPU is the bound, the
   * completion time only moves when the timer interrupts land, and their coalescing can tip IOPS
   * either way by a fraction of a percent (a 1 ms run at -d128 -s1 -p0 on xeon-gold-6154: 689K at
   * 10 us, 692K at 21 us), so the relation says nothing there. Runs last at least 1 ms and 50
   * completion times, so that the start (when early completions steal the CPU from submission)
   * weighs little, and one io_uring_enter call a thread is allowed at the end.
   */
  private Result longerCompletion(Case c) {
    long given =
        c.get("nb:completion_nsec") == null ? 10_000 : Long.parseLong(c.get("nb:completion_nsec"));
    // a case that its CPU bounds at its own completion_nsec may be bound by the device at ten
    // times it: the relation holds from whichever base the device bounds
    for (long nsec : new long[] {given, 10 * given + 10_000}) {
      Result r = longerCompletion(c, nsec);
      if (r != null) {
        return r;
      }
    }
    return Result.SKIP;
  }

  /**
   * {@code longer-completion} from a base of {@code nsec}; null when the device does not bound it.
   */
  private Result longerCompletion(Case c, long nsec) {
    long longer = 2 * nsec + 1000;
    int threads = c.get("-n") == null ? 1 : Integer.parseInt(c.get("-n"));
    long runtimeUs =
        Math.min(
            Math.max(Math.max(c.runtimeUs(), 1000), 50 * longer / 1000),
            Math.max(200, 16_000 / threads));
    Case base =
        c.with(Case.RUNTIME, runtimeUs + "us").with("nb:completion_nsec", String.valueOf(nsec));
    RunReport a = report(base);
    if (a == null) {
      return Result.SKIP;
    }
    if (a.result().calls() == 0 || !latencyBound(a)) {
      return null;
    }
    RunReport b = report(base.with("nb:completion_nsec", String.valueOf(longer)));
    if (b == null) {
      return Result.SKIP;
    }
    double perCall = (double) a.result().done() / a.result().calls();
    double quantum = a.result().submitters().size() * perCall * 1e6 / runtimeUs;
    return Result.holdsIf(
        b.iops() <= a.iops() + quantum,
        "completion_nsec "
            + nsec
            + " -> "
            + longer
            + " raised IOPS from "
            + a.iops()
            + " to "
            + b.iops()
            + " over "
            + runtimeUs
            + " us");
  }

  /**
   * Whether the device bounds every submitter: its CPU sat idle a tenth of the run (it slept in
   * io_cqring_wait), or it polled for nothing at least once for every ten I/Os (it spun in
   * io_do_iopoll waiting for the device).
   */
  private static boolean latencyBound(RunReport r) {
    // On the timer, the device bounds IOPS only near what it can complete: each thread's queue
    // (its depth, or the tags under it) once per completion_nsec. A thread far below that is bound
    // by its CPU, whatever it polls, and reap work it leaves to the ring's teardown can raise its
    // IOPS when completions come later (a thread submitting one I/O a call, 1.44M IOPS of 6.4M).
    long nsec = r.settings().nullBlk().completionNsec();
    if (nsec > 0) {
      int queue = Math.min(r.settings().ioUring().depth(), r.settings().nullBlk().hwQueueDepth());
      double capacity = r.result().submitters().size() * (double) queue * 1e9 / nsec;
      if (r.iops() < 0.9 * capacity) {
        return false;
      }
    }
    long endPs = r.result().endPs();
    for (var sub : r.result().submitters()) {
      var empty = r.result().ledger().steps(sub.cpu()).get(KernelFn.IO_DO_IOPOLL_EMPTY.symbol());
      boolean idle = endPs - r.result().ledger().totalPs(sub.cpu()) >= endPs / 10;
      boolean spun = empty != null && empty.calls() * 10 >= Math.max(1, sub.completed());
      if (!idle && !spun) {
        return false;
      }
    }
    return true;
  }

  /**
   * The random sources of the model are null_blk's requeue= and timeout= fault injection (skipped
   * here when they draw), the sbitmap's per-CPU allocation hints (random, as {@code
   * sbitmap_init_node} draws them, and they decide which tag and word a request gets) and
   * t/io_uring's random offsets (drawn, but nothing in null_blk depends on the sector;
   * mq-deadline's order does), the scheduler tick's phase on each CPU and the calls' cost factors
   * (interference.variation). With one tag per hctx and no scheduler every hint is 0, and with
   * interference off no source is active: the case is tried so, on two seeds.
   */
  private Result seedFree(Case c, Outcome ran) {
    if (randomFaults(c.get("nb:requeue")) || randomFaults(c.get("nb:timeout"))) {
      // null_blk's requeue= fault injection draws from each CPU's stream: a random source.
      return Result.SKIP;
    }
    // no scheduler: mq-deadline's sched tags are at least 4 (BLKDEV_MIN_RQ), each CPU's hint among
    // them random, and it dispatches in sector order, which the random offsets decide
    Case one = c.with("nb:hw_queue_depth", "1").with("set:queue.scheduler", "none");
    boolean plain =
        ran.report().settings().nullBlk().hwQueueDepth() == 1
            && "none".equals(c.get("set:queue.scheduler"))
            && !ran.report().settings().interference().anyRandom();
    if (ran.report().settings().interference().anyRandom()) {
      one = one.with("set:interference.enabled", "false");
    }
    Outcome a = plain ? ran : sequential.run(one.args());
    if (a.exit() != 0) {
      return Result.SKIP;
    }
    String seed = c.get("--seed") == null ? "1" : c.get("--seed");
    String other = String.valueOf(Long.parseLong(seed) + 7919);
    Outcome b = sequential.run(one.with("--seed", other).args());
    if (b.exit() != 0) {
      return new Result(
          true, "--seed " + other + " ended with exit " + b.exit() + ": " + b.errLine());
    }
    String x = maskSeed(a.out());
    String y = maskSeed(b.out());
    return Result.holdsIf(
        x.equals(y),
        "--seed "
            + seed
            + " vs "
            + other
            + " with no random source: "
            + Outcome.of(0, x, "", null).firstDifference(Outcome.of(0, y, "", null)));
  }

  /**
   * A sweep of the case over its seed and the next: it runs, and each point's {@code summary.json}
   * is what the point's command line writes alone with {@code --json}, wall time aside.
   */
  private Result sweepAsAlone(Case c) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("blksim-fuzz-sweep");
      List<String> base = new ArrayList<>(c.args());
      base.addAll(List.of("--engine", "sequential"));
      StringBuilder words = new StringBuilder();
      for (String w : base) {
        words
            .append(words.length() == 0 ? "" : ", ")
            .append(
                com.typesafe.config.ConfigValueFactory.fromAnyRef(w)
                    .render(com.typesafe.config.ConfigRenderOptions.concise()));
      }
      String seed = c.get("--seed") == null ? "1" : c.get("--seed");
      String other = String.valueOf(Long.parseLong(seed) + 1);
      Path file = dir.resolve("sweep.conf");
      Files.writeString(
          file, "base = [" + words + "]\naxes { seed = [" + seed + ", " + other + "] }\n");
      Path out = dir.resolve("out");
      Outcome s =
          PLAIN.run(List.of("sweep", file.toString(), "--out", out.toString(), "--jobs", "1"));
      if (s.exit() != 0) {
        return new Result(
            true, "a sweep of a case that runs ended with exit " + s.exit() + ": " + s.errLine());
      }
      List<String> rows = Files.readAllLines(out.resolve("results.csv"));
      for (int i = 1; i < rows.size(); i++) {
        String key = rows.get(i).split(",")[1];
        String point = i == 1 ? seed : other;
        Path json = dir.resolve("alone-" + i + ".json");
        Outcome alone =
            sequential.run(c.with("--seed", point).with("--json", json.toString()).args());
        if (alone.exit() != 0) {
          return new Result(true, "--seed " + point + " alone ended with exit " + alone.exit());
        }
        String a = withoutWall(Files.readString(json));
        String b =
            withoutWall(
                Files.readString(out.resolve("points").resolve(key).resolve("summary.json")));
        if (!a.equals(b)) {
          return new Result(
              true,
              "sweep point --seed "
                  + point
                  + " differs from its command alone: "
                  + Outcome.of(0, a, "", null).firstDifference(Outcome.of(0, b, "", null)));
        }
      }
      return Result.HOLDS;
    } catch (IOException e) {
      return new Result(true, "the sweep's files: " + e.getMessage());
    } finally {
      if (dir != null) {
        try {
          blksim.loadgen.sweep.PointStore.deleteTree(dir);
        } catch (IOException e) {
          // a temporary directory left behind
        }
      }
    }
  }

  /** A summary without its two wall-time figures, which no two runs share. */
  private static String withoutWall(String json) {
    return json.replaceAll("(?m)^.*\"(wall_sec|sim_ios_per_wall_sec)\".*\n", "");
  }

  /** This build, with nothing added to its command lines: the sweep command takes no --engine. */
  private static final Build PLAIN = new ThisBuild(List.of());

  /** Whether a fault-injection string draws random numbers: a probability between 0 and 100. */
  private static boolean randomFaults(String attr) {
    if (attr == null) {
      return false;
    }
    String[] f = attr.split(",");
    return f.length < 2 || !(f[1].strip().equals("0") || f[1].strip().equals("100"));
  }

  /** The output with the seed that the summary's first line names taken out. */
  private static String maskSeed(String out) {
    return out.replaceAll("(?m)^(blksim: .* of virtual time), seed -?\\d+$", "$1, seed S");
  }

  /** The sequential report of {@code c}, or null if it did not run. */
  private RunReport report(Case c) {
    Outcome o = sequential.run(c.args());
    return o.exit() == 0 ? o.report() : null;
  }
}

package blksim.loadgen.fuzz;

import blksim.config.Patch;
import blksim.loadgen.report.RunReport;
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
 *       and then 2k of them, give twice the IOPS within 1 %;
 *   <li>{@code longer-completion}: on null_blk's timer mode, a longer {@code completion_nsec} never
 *       raises IOPS;
 *   <li>{@code seed-free}: while no random source is active (one tag per hctx, see {@link
 *       #seedFree}), {@code --seed} changes nothing but the seed the summary names.
 * </ul>
 */
final class Relations {
  /** The relations, in the order case numbers cycle through them. */
  static final List<String> NAMES =
      List.of("patch-removes-work", "double-cpus", "longer-completion", "seed-free");

  /** Patches that only take work out of the path, whatever the CPU. */
  private static final List<Patch> REMOVE_WORK =
      List.of(Patch.BDEV_CACHE_IN_FILE, Patch.BDEV_INODE_INLINE, Patch.END_REQUEST_FAST_PATH);

  /** The most threads of the doubled side of {@code double-cpus}. */
  private static final int MAX_DOUBLED = 16;

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
              "2".equals(c.get("nb:irqmode")) ? longerCompletion(c, a) : Result.SKIP;
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
        b.iops() >= a.iops(),
        p.key() + " only removes work, yet IOPS fell from " + a.iops() + " to " + b.iops());
  }

  /**
   * The doubled machine must make twice the IOPS within 1 %, plus what the measure itself cannot
   * resolve: IOPS counts the submissions of whole io_uring_enter calls made within the runtime, so
   * each thread may gain or lose one call at the end ({@code IOS/call} SQEs). The runs are at least
   * 1 ms long (0.5 ms at 16 CPUs), so that the cold start, when each CPU's first bios still come
   * from the shared slab, weighs little.
   */
  private Result doubleCpus(Case c) {
    int k = c.get("-n") == null ? 1 : Integer.parseInt(c.get("-n"));
    if (2 * k > MAX_DOUBLED) {
      return Result.SKIP;
    }
    long runtimeUs = Math.min(Math.max(runtimeUs(c), 1000), 8000 / (2L * k));
    Case one = ownQueues(c, k, runtimeUs);
    RunReport a = report(one);
    if (a == null || !a.result().workers().isEmpty() || a.result().calls() == 0) {
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
    double tolerance = 0.01 + 2 * k * perCall / doneB;
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
   * interrupt, so that no bio goes through the slab, whose node {@code list_lock} CPUs do share.
   */
  private static Case ownQueues(Case c, int n, long runtimeUs) {
    Case own = c;
    if ("0".equals(c.get("-p"))) {
      Set<String> patches = new LinkedHashSet<>();
      if (c.get("--patch") != null) {
        patches.addAll(List.of(c.get("--patch").split(",")));
      }
      patches.add(Patch.BIO_CACHE_IRQ_LIST.key());
      own = c.with("--patch", String.join(",", patches));
    }
    return own.without("--taskset")
        .without("set:bioset.percpu-cache")
        .without("nb:nr_devices")
        .with("--cpus", String.valueOf(n))
        .with("-n", String.valueOf(n))
        .with("nb:submit_queues", String.valueOf(n))
        .with("nb:poll_queues", String.valueOf(n))
        .with(Case.RUNTIME, runtimeUs + "us")
        .withFiles(List.of("/dev/nullb0"));
  }

  private Result longerCompletion(Case c, RunReport a) {
    long nsec =
        c.get("nb:completion_nsec") == null ? 10_000 : Long.parseLong(c.get("nb:completion_nsec"));
    long longer = 2 * nsec + 1000;
    RunReport b = report(c.with("nb:completion_nsec", String.valueOf(longer)));
    if (b == null) {
      return Result.SKIP;
    }
    return Result.holdsIf(
        b.iops() <= a.iops(),
        "completion_nsec "
            + nsec
            + " -> "
            + longer
            + " raised IOPS from "
            + a.iops()
            + " to "
            + b.iops());
  }

  /**
   * The random sources of the model are the sbitmap's per-CPU allocation hints (random, as {@code
   * sbitmap_init_node} draws them, and they decide which tag and word a request gets) and
   * t/io_uring's random offsets (drawn, but nothing in null_blk depends on the sector). With one
   * tag per hctx every hint is 0, so no source is active: the case is tried on one tag, on two
   * seeds.
   */
  private Result seedFree(Case c, Outcome ran) {
    Case one = c.with("nb:hw_queue_depth", "1");
    Outcome a =
        ran.report().settings().nullBlk().hwQueueDepth() == 1 ? ran : sequential.run(one.args());
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

  /** The output with the seed that the summary's first line names taken out. */
  private static String maskSeed(String out) {
    return out.replaceAll("(?m)^(blksim: .* of virtual time), seed -?\\d+$", "$1, seed S");
  }

  private static long runtimeUs(Case c) {
    String v = c.get(Case.RUNTIME);
    return v == null ? Generator.BUDGET_NS / 1000 : Long.parseLong(v.replace("us", ""));
  }

  /** The sequential report of {@code c}, or null if it did not run. */
  private RunReport report(Case c) {
    Outcome o = sequential.run(c.args());
    return o.exit() == 0 ? o.report() : null;
  }
}

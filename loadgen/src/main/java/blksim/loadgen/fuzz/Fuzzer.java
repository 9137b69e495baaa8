package blksim.loadgen.fuzz;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs generated cases through a check, several at once, and gathers what they said; then shrinks
 * the failures to commands a person can paste. Case {@code i} is the same whatever the number of
 * jobs, and the result lists everything in case order, so two runs of the same seed report the same
 * (but for the wall time).
 */
public final class Fuzzer {

  /** What is asked of every case: the oracles, or the comparison with another build. */
  @FunctionalInterface
  public interface Check {
    Verdict check(long index, Case c);
  }

  /**
   * A case that failed.
   *
   * @param shrunk the smallest case found that fails the same oracle
   * @param shrinkRuns candidates the shrinker ran
   */
  public record Failure(
      long index, Case generated, Verdict.Failed verdict, Case shrunk, int shrinkRuns) {}

  /**
   * What a fuzzing run found.
   *
   * @param refusals refusals by reason
   * @param relations metamorphic relations checked, by name
   * @param dimensions how many cases gave each option
   * @param failures every failing case, in case order; the first ones shrunk
   */
  public record Result(
      long seed,
      long from,
      long count,
      long ran,
      Map<String, Long> refusals,
      Map<String, Long> relations,
      Map<String, Long> dimensions,
      List<Failure> failures,
      long wallNanos) {

    public long refused() {
      return refusals.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private final Generator generator;
  private final Check check;
  private final int jobs;
  private final Duration caseTimeout;
  private final int shrinkRuns;
  private final int shrinkFailures;
  private final PrintStream progress;

  /**
   * @param jobs cases run at once
   * @param caseTimeout wall time after which a case counts as hung
   * @param shrinkRuns candidates the shrinker may run for one failure
   * @param shrinkFailures failures to shrink (one of each oracle first)
   * @param progress where a progress line goes every twentieth of the run
   */
  public Fuzzer(
      Generator generator,
      Check check,
      int jobs,
      Duration caseTimeout,
      int shrinkRuns,
      int shrinkFailures,
      PrintStream progress) {
    this.generator = generator;
    this.check = check;
    this.jobs = jobs;
    this.caseTimeout = caseTimeout;
    this.shrinkRuns = shrinkRuns;
    this.shrinkFailures = shrinkFailures;
    this.progress = progress;
  }

  /** Runs cases {@code from} to {@code from + count - 1} of {@code seed}. */
  public Result run(long seed, long from, long count) {
    long start = System.nanoTime();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            jobs,
            r -> {
              Thread t = new Thread(r, "blksim-fuzz");
              t.setDaemon(true);
              return t;
            });
    java.util.ArrayDeque<Future<Verdict>> window = new java.util.ArrayDeque<>();
    java.util.ArrayDeque<Case> windowCases = new java.util.ArrayDeque<>();
    long next = from;
    long end = from + count;
    long ran = 0;
    Map<String, Long> refusals = new TreeMap<>();
    Map<String, Long> relations = new TreeMap<>();
    Map<String, Long> dimensions = new TreeMap<>();
    List<Failure> failures = new ArrayList<>();
    long step = Math.max(1, count / 20);
    for (long k = 0; k < count; k++) {
      // A bounded window of cases in the pool: memory stays flat however many are asked for.
      while (next < end && window.size() < 4 * jobs) {
        long index = next++;
        Case c = generator.generate(index);
        windowCases.add(c);
        window.add(pool.submit(() -> check.check(index, c)));
      }
      Case c = windowCases.poll();
      long index = from + k;
      Verdict v = await(window.poll());
      dimensions(c, dimensions);
      if (v instanceof Verdict.Ran r) {
        ran++;
        if (r.relation() != null) {
          relations.merge(r.relation(), 1L, Long::sum);
        }
      } else if (v instanceof Verdict.Refused r) {
        refusals.merge(r.reason(), 1L, Long::sum);
      } else if (v instanceof Verdict.Failed f) {
        failures.add(new Failure(index, c, f, c, 0));
      }
      if ((k + 1) % step == 0 || k + 1 == count) {
        progress.printf(
            Locale.ROOT,
            "fuzz: %d/%d cases, %d ran, %d refused, %d failed%n",
            k + 1,
            count,
            ran,
            refusals.values().stream().mapToLong(Long::longValue).sum(),
            failures.size());
      }
    }
    List<Failure> shrunk = shrinkSome(failures, pool);
    pool.shutdownNow();
    return new Result(
        seed, from, count, ran, refusals, relations, dimensions, shrunk, System.nanoTime() - start);
  }

  /** One check on the pool, with the case timeout and with what it throws turned into a verdict. */
  private Verdict checked(ExecutorService pool, long index, Case c) {
    return await(pool.submit(() -> check.check(index, c)));
  }

  private Verdict await(Future<Verdict> f) {
    try {
      return f.get(caseTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      return new Verdict.Failed(
          "hang", "no end after " + caseTimeout.toSeconds() + " s of wall time");
    } catch (ExecutionException e) {
      return new Verdict.Failed("oracle threw", String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Verdict.Failed("interrupted", "the fuzzer was interrupted");
    }
  }

  /** Oracles whose failures are not shrunk: each candidate could take the whole case timeout. */
  private static final Set<String> NOT_SHRUNK = Set.of("hang", "interrupted");

  /** Shrinks the first failure of each oracle, then others, up to {@code shrinkFailures}. */
  private List<Failure> shrinkSome(List<Failure> failures, ExecutorService pool) {
    List<Integer> order = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < failures.size(); i++) {
      if (!NOT_SHRUNK.contains(failures.get(i).verdict().oracle())
          && seen.add(failures.get(i).verdict().oracle())) {
        order.add(i);
      }
    }
    for (int i = 0; i < failures.size() && order.size() < shrinkFailures; i++) {
      if (!order.contains(i) && !NOT_SHRUNK.contains(failures.get(i).verdict().oracle())) {
        order.add(i);
      }
    }
    List<Failure> out = new ArrayList<>(failures);
    for (int n = 0; n < Math.min(shrinkFailures, order.size()); n++) {
      int i = order.get(n);
      Failure f = failures.get(i);
      String oracle = f.verdict().oracle();
      Shrinker s =
          new Shrinker(
              c ->
                  checked(pool, f.index(), c) instanceof Verdict.Failed g
                      && g.oracle().equals(oracle),
              shrinkRuns);
      Case small = s.shrink(f.generated());
      Verdict last = small.equals(f.generated()) ? f.verdict() : checked(pool, f.index(), small);
      Verdict.Failed verdict = last instanceof Verdict.Failed g ? g : f.verdict();
      out.set(i, new Failure(f.index(), f.generated(), verdict, small, s.runs()));
    }
    return out;
  }

  /** Counts the dimensions {@code c} gives. */
  private static void dimensions(Case c, Map<String, Long> into) {
    for (Case.Opt o : c.options()) {
      String n = o.name();
      String label =
          n.startsWith("nb:")
              ? "null_blk " + n.substring(3)
              : n.startsWith("set:patches.")
                  ? "a patch described as data (--set patches.NAME...)"
                  : n.startsWith("set:")
                      ? "--set " + n.substring(4)
                      : n.startsWith("dm:") ? "--dm-table" : n;
      into.merge(label, 1L, Long::sum);
    }
    if (c.files().size() > 1) {
      into.merge("several files", 1L, Long::sum);
    }
  }
}

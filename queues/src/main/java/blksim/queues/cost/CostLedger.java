package blksim.queues.cost;

import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time charged per CPU and per step of the I/O path (named after the kernel function), with the
 * number of times each was charged. Every component keeps one; a run merges them for the profile.
 * Iteration is sorted, so reports built from it are deterministic.
 */
public final class CostLedger {
  /** Picoseconds and calls of one step on one CPU. */
  public static final class Entry {
    private long ps;
    private long calls;

    public long ps() {
      return ps;
    }

    public long calls() {
      return calls;
    }
  }

  private final Map<Integer, Map<String, Entry>> byCpu = new TreeMap<>();
  private final Map<Integer, long[]> timeByCpu = new TreeMap<>();

  /**
   * Charges {@code calls} executions of {@code step} costing {@code psEach} each to {@code cpu}.
   *
   * @return the total charged, in ps
   */
  public long charge(int cpu, CpuTime what, String step, long psEach, long calls) {
    long ps = psEach * calls;
    timeByCpu.computeIfAbsent(cpu, c -> new long[CpuTime.values().length])[what.ordinal()] += ps;
    Entry e =
        byCpu.computeIfAbsent(cpu, c -> new TreeMap<>()).computeIfAbsent(step, s -> new Entry());
    e.ps += ps;
    e.calls += calls;
    return ps;
  }

  /**
   * Charges {@code calls} executions of {@code step} to {@code cpu}.
   *
   * @return the total charged, in ps
   */
  public long charge(int cpu, CpuTime what, CostStep step, long calls) {
    return charge(cpu, what, step.name(), step.ps(), calls);
  }

  /** Adds every entry of {@code other} to this ledger. */
  public void merge(CostLedger other) {
    other.timeByCpu.forEach(
        (cpu, t) -> {
          long[] mine = timeByCpu.computeIfAbsent(cpu, c -> new long[CpuTime.values().length]);
          for (int i = 0; i < t.length; i++) {
            mine[i] += t[i];
          }
        });
    other.byCpu.forEach(
        (cpu, steps) ->
            steps.forEach(
                (step, e) -> {
                  Entry mine =
                      byCpu
                          .computeIfAbsent(cpu, c -> new TreeMap<>())
                          .computeIfAbsent(step, s -> new Entry());
                  mine.ps += e.ps;
                  mine.calls += e.calls;
                }));
  }

  /** Steps charged to {@code cpu}, sorted by name. */
  public Map<String, Entry> steps(int cpu) {
    return byCpu.getOrDefault(cpu, Map.of());
  }

  /** Time charged to {@code cpu} for {@code what}, in ps. */
  public long time(int cpu, CpuTime what) {
    long[] t = timeByCpu.get(cpu);
    return t == null ? 0 : t[what.ordinal()];
  }

  /** Total time charged to {@code cpu}, in ps. */
  public long totalPs(int cpu) {
    return steps(cpu).values().stream().mapToLong(Entry::ps).sum();
  }
}

package blksim.queues.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time charged per CPU and per step of the I/O path ({@link CostId}: a kernel function, or the
 * time contention adds), with the number of times each was charged. Every component keeps one; a
 * run merges them for the profile. Entries live in arrays indexed by CPU and id; what is read back
 * is sorted by name, so reports built from it are deterministic.
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

  /** One CPU's entries, by {@link CostId#index()}, and its time by {@link CpuTime}. */
  private static final class Row {
    final long[] ps = new long[CostId.count()];
    final long[] calls = new long[CostId.count()];
    final boolean[] charged = new boolean[CostId.count()];
    final long[] time = new long[CpuTime.values().length];
  }

  private final List<Row> rows = new ArrayList<>();

  /** The added functions charged here, by slot ({@link AddedFn}): their ids carry their names. */
  private final CostId[] added = new CostId[CostId.count() - AddedFn.FIRST_INDEX];

  private Row row(int cpu) {
    while (rows.size() <= cpu) {
      rows.add(null);
    }
    Row r = rows.get(cpu);
    if (r == null) {
      r = new Row();
      rows.set(cpu, r);
    }
    return r;
  }

  /**
   * Charges {@code calls} executions of {@code step} to {@code cpu}; a charge of no calls still
   * makes the step appear in the profile, at zero.
   *
   * @return the total charged, in ps
   */
  public long charge(int cpu, CpuTime what, CostStep step, long calls) {
    return charge(cpu, what, step, calls, step.ps() * calls);
  }

  /**
   * Charges {@code calls} executions of {@code step} that took {@code ps} together (calls whose
   * cost varied, {@link CallVariation}).
   *
   * @return {@code ps}
   */
  public long charge(int cpu, CpuTime what, CostStep step, long calls, long ps) {
    Row r = row(cpu);
    int i = step.id().index();
    if (i >= AddedFn.FIRST_INDEX) {
      added[i - AddedFn.FIRST_INDEX] = step.id();
    }
    r.time[what.ordinal()] += ps;
    r.ps[i] += ps;
    r.calls[i] += calls;
    r.charged[i] = true;
    return ps;
  }

  /** Adds every entry of {@code other} to this ledger. */
  public void merge(CostLedger other) {
    for (int s = 0; s < added.length; s++) {
      if (other.added[s] != null) {
        added[s] = other.added[s];
      }
    }
    for (int cpu = 0; cpu < other.rows.size(); cpu++) {
      Row theirs = other.rows.get(cpu);
      if (theirs == null) {
        continue;
      }
      Row mine = row(cpu);
      for (int i = 0; i < theirs.ps.length; i++) {
        mine.ps[i] += theirs.ps[i];
        mine.calls[i] += theirs.calls[i];
        mine.charged[i] |= theirs.charged[i];
      }
      for (int t = 0; t < theirs.time.length; t++) {
        mine.time[t] += theirs.time[t];
      }
    }
  }

  /** Steps charged to {@code cpu}, sorted by name (ids of one name counted together). */
  public Map<String, Entry> steps(int cpu) {
    return steps(cpu, CostId::symbol);
  }

  /**
   * The same, each id named by {@code name}. Where ids share a name, the calls are those of the ids
   * that cost something (one that costs nothing in this run does not run), or of all when none did.
   */
  public Map<String, Entry> steps(int cpu, java.util.function.Function<CostId, String> name) {
    Map<String, Entry> out = new TreeMap<>();
    Row r = cpu < rows.size() ? rows.get(cpu) : null;
    if (r == null) {
      return out;
    }
    Map<String, long[]> freeCalls = new TreeMap<>();
    for (int i = 0; i < r.ps.length; i++) {
      if (r.charged[i]) {
        String n =
            name.apply(i >= AddedFn.FIRST_INDEX ? added[i - AddedFn.FIRST_INDEX] : CostId.of(i));
        Entry e = out.computeIfAbsent(n, s -> new Entry());
        e.ps += r.ps[i];
        if (r.ps[i] > 0) {
          e.calls += r.calls[i];
        } else {
          freeCalls.computeIfAbsent(n, s -> new long[1])[0] += r.calls[i];
        }
      }
    }
    for (Map.Entry<String, long[]> f : freeCalls.entrySet()) {
      Entry e = out.get(f.getKey());
      if (e.ps == 0) {
        e.calls += f.getValue()[0];
      }
    }
    return out;
  }

  /** Time charged to {@code cpu} for {@code what}, in ps. */
  public long time(int cpu, CpuTime what) {
    Row r = cpu < rows.size() ? rows.get(cpu) : null;
    return r == null ? 0 : r.time[what.ordinal()];
  }

  /** Total time charged to {@code cpu}, in ps. */
  public long totalPs(int cpu) {
    Row r = cpu < rows.size() ? rows.get(cpu) : null;
    long sum = 0;
    if (r != null) {
      for (long ps : r.ps) {
        sum += ps;
      }
    }
    return sum;
  }
}

package blksim.queues.cost;

import blksim.config.ConfigError;
import blksim.config.CpuProfile;
import blksim.config.KernelSettings;
import blksim.config.MicroArch;
import blksim.config.PatchData;
import blksim.config.Work;
import blksim.config.WorkUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The patches described as data ({@link PatchData}, docs/your-patch.md) priced on a run's profile:
 * each change of a function's work becomes nanoseconds from the CPU's facts and is added to every
 * call of that function; each added function is priced the same way and charged where its caller
 * is. A change applies to the function it names and no other: the profile's facts price it, the
 * profile's scale only the plain {@code ns}. {@link PathCosts} calls it once the code has priced
 * every function.
 */
public final class PatchPrices {
  /** A function a patch adds, priced, and how many of its calls each call of its caller makes. */
  public record Rider(CostStep step, int perCall) {}

  private final Map<String, List<KernelFn>> bySymbol = new TreeMap<>();
  private final List<Added> added = new ArrayList<>();

  /** An added function and the functions that call it. */
  private record Added(AddedFn id, double ns, int perCall, List<KernelFn> callers) {}

  PatchPrices() {
    for (KernelFn fn : KernelFn.values()) {
      bySymbol.computeIfAbsent(fn.symbol(), s -> new ArrayList<>()).add(fn);
      if (!fn.symbol516().equals(fn.symbol())) {
        bySymbol.computeIfAbsent(fn.symbol516(), s -> new ArrayList<>()).add(fn);
      }
    }
  }

  /**
   * The price of one call's {@code work} on {@code p}, ns: each unit's count times what the facts
   * say it costs, the plain {@code ns} times the profile's scale.
   */
  static double ns(Work work, CpuProfile p) {
    MicroArch f = p.facts();
    double sum = 0;
    for (Map.Entry<WorkUnit, Double> e : work.counts().entrySet()) {
      double n = e.getValue();
      sum +=
          switch (e.getKey()) {
            case L1_LOADS -> n * f.ns(f.l1LoadCycles());
            case L2_LOADS -> n * f.ns(f.l2LoadCycles());
            case CALLS -> n * f.ns(f.callCycles());
            case INDIRECT_CALLS -> n * f.ns(f.callCycles() + f.retpolineCycles());
            case STORES -> n * f.ns(f.storeCycles());
            case ATOMICS -> n * f.ns(f.atomicCycles());
            case IRQ_SAVE_RESTORE -> n * f.ns(f.irqSaveRestoreCycles());
            case KTIME -> n * f.ktimeGetNs();
            case REP_STOS_QWORDS ->
                Math.signum(n)
                    * f.ns(f.repStosStartupCycles() + Math.abs(n) * f.repStosQwordCycles());
            case CACHELINES -> n * f.cachelineTransferNs();
            case NS -> n * p.scale();
          };
    }
    return sum;
  }

  /**
   * Adds every change of {@code k}'s patches to {@code c}'s prices, and prices the functions they
   * add; a function that the path does not run here (priced 0) is left at 0.
   *
   * @throws ConfigError for a function that is not the path's, or a price that falls below 0
   */
  void apply(PathCosts c, CpuProfile p, KernelSettings k) {
    for (PatchData d : k.library().values()) {
      // every patch's names, in effect or not: a typo is found before the patch is turned on
      d.changes().keySet().forEach(fn -> functions(d, "changes", fn));
      d.adds().forEach((fn, a) -> functions(d, "adds." + fn + ".called-from", a.calledFrom()));
      d.with().forEach((o, w) -> w.keySet().forEach(fn -> functions(d, "with." + o, fn)));
    }
    Set<String> inEffect = new TreeSet<>(k.names());
    Map<KernelFn, List<String>> changedBy = new TreeMap<>();
    for (PatchData d : k.priced()) {
      for (Map.Entry<String, Work> e : d.changes().entrySet()) {
        change(c, p, d, "changes", e.getKey(), e.getValue(), changedBy);
      }
      for (Map.Entry<String, Map<String, Work>> w : d.with().entrySet()) {
        if (inEffect.contains(w.getKey())) {
          for (Map.Entry<String, Work> e : w.getValue().entrySet()) {
            change(c, p, d, "with." + w.getKey(), e.getKey(), e.getValue(), changedBy);
          }
        }
      }
      for (Map.Entry<String, PatchData.Added> e : d.adds().entrySet()) {
        add(p, d, e.getKey(), e.getValue());
      }
    }
    for (Map.Entry<KernelFn, List<String>> e : changedBy.entrySet()) {
      double ns = c.ns(e.getKey());
      if (ns < 0) {
        throw new ConfigError(
            String.format(
                Locale.ROOT,
                "%s: the work it takes from %s makes its price negative on profile %s (%.2f ns a"
                    + " call): accepted changes that leave a function at 0 ns or more",
                "patch " + String.join(" and ", new TreeSet<>(e.getValue())),
                e.getKey().symbol(),
                p.name(),
                ns));
      }
    }
  }

  private void change(
      PathCosts c,
      CpuProfile p,
      PatchData d,
      String where,
      String symbol,
      Work work,
      Map<KernelFn, List<String>> changedBy) {
    double ns = ns(work, p);
    for (KernelFn fn : functions(d, where, symbol)) {
      if (c.ns(fn) != 0) {
        c.set(fn, c.ns(fn) + ns);
        changedBy.computeIfAbsent(fn, x -> new ArrayList<>()).add(d.name());
      }
    }
  }

  private void add(CpuProfile p, PatchData d, String symbol, PatchData.Added a) {
    String at = "blksim.patches." + d.name() + ".adds." + symbol;
    List<KernelFn> callers = functions(d, "adds." + symbol + ".called-from", a.calledFrom());
    if (added.size() == PatchData.MAX_ADDED) {
      throw new ConfigError(
          at + ": the run's patches add more than " + PatchData.MAX_ADDED + " functions");
    }
    double ns = ns(a.work(), p);
    if (ns < 0) {
      throw new ConfigError(
          String.format(
              Locale.ROOT,
              "%s: its work costs %.2f ns a call on profile %s: an added function costs 0 ns or"
                  + " more (take work away from an existing one with changes)",
              at,
              ns,
              p.name()));
    }
    added.add(new Added(new AddedFn(symbol, added.size()), ns, a.perCall(), callers));
  }

  /** The path's functions named {@code symbol}, by either name. */
  private List<KernelFn> functions(PatchData d, String where, String symbol) {
    List<KernelFn> fns = bySymbol.get(symbol);
    if (fns == null) {
      String near = blksim.config.KeySuggestion.nearestOf(symbol, bySymbol.keySet());
      throw new ConfigError(
          "blksim.patches."
              + d.name()
              + "."
              + where
              + (where.endsWith("called-from") ? " = " : ".")
              + blksim.config.OneLine.of(symbol)
              + " is not a function of blksim's path"
              + (near == null ? "" : " (did you mean " + near + "?)")
              + ": accepted "
              + String.join(", ", bySymbol.keySet()));
    }
    return fns;
  }

  /**
   * The riders of each function by {@link KernelFn#ordinal()} (null where none), their prices
   * rounded as {@code ps} rounds: a caller that costs nothing in this run does not run, and carries
   * none.
   */
  Rider[][] riders(long[] callerPs, java.util.function.DoubleToLongFunction ps) {
    Rider[][] out = new Rider[KernelFn.values().length][];
    for (Added a : added) {
      CostStep step = new CostStep(a.id(), ps.applyAsLong(a.ns()));
      for (KernelFn fn : a.callers()) {
        if (callerPs[fn.ordinal()] == 0) {
          continue;
        }
        Rider[] rs = out[fn.ordinal()];
        Rider[] more = rs == null ? new Rider[1] : java.util.Arrays.copyOf(rs, rs.length + 1);
        more[more.length - 1] = new Rider(step, a.perCall());
        out[fn.ordinal()] = more;
      }
    }
    return out;
  }
}

package blksim.config;

import java.util.Set;
import java.util.TreeSet;

/**
 * Micro-architectural facts of a CPU, from which the costs of the path's variants are derived: the
 * bdev lookups (dependent loads, out-of-line calls), {@code bio_init} (stores or {@code rep stos}),
 * atomics, {@code ktime_get_ns}, the syscall. Cycles are converted at {@code clockGhz}.
 *
 * @param clockGhz core clock under load, GHz
 * @param l1LoadCycles a dependent load that hits L1
 * @param l2LoadCycles a dependent load that hits L2
 * @param callCycles an out-of-line call and return of a small function, frame included
 * @param retpolineCycles what a call through a function pointer adds to a direct one: the retpoline
 *     thunk's forced misprediction on a kernel built with CONFIG_RETPOLINE, 0 without
 * @param storeCycles one store in a run of independent stores
 * @param repStosStartupCycles start-up of {@code rep stosq}
 * @param repStosQwordCycles {@code rep stosq} per qword, at small counts
 * @param atomicCycles an uncontended {@code lock}-prefixed read-modify-write
 * @param irqSaveRestoreCycles {@code local_irq_save} plus {@code local_irq_restore}
 * @param cachelineTransferNs a cache line moving between cores
 * @param ktimeGetNs one {@code ktime_get_ns()}
 * @param syscallNs entry and exit of one syscall, with this box's mitigations
 * @param blkgAssociateNs {@code bio_associate_blkg} of a DM clone: 0 without CONFIG_BLK_CGROUP
 * @param tickNs one scheduler tick on a busy CPU: {@code tick_sched_timer} and what it calls
 *     ({@code update_process_times}, {@code scheduler_tick}), beyond the interrupt's entry
 * @param schedSoftirqNs one SCHED_SOFTIRQ, {@code run_rebalance_domains}: the periodic load balance
 *     a busy CPU's tick raises
 * @param vmstatKworkerNs one visit of the vmstat kworker to a busy CPU: the switch to it, {@code
 *     vmstat_update}, the switch back
 */
public record MicroArch(
    double clockGhz,
    double l1LoadCycles,
    double l2LoadCycles,
    double callCycles,
    double retpolineCycles,
    double storeCycles,
    double repStosStartupCycles,
    double repStosQwordCycles,
    double atomicCycles,
    double irqSaveRestoreCycles,
    double cachelineTransferNs,
    double ktimeGetNs,
    double syscallNs,
    double blkgAssociateNs,
    double tickNs,
    double schedSoftirqNs,
    double vmstatKworkerNs) {

  /** Bounds of the facts, far beyond any CPU, so that no derived cost overflows picoseconds. */
  static final double MIN_GHZ = 0.1;

  static final double MAX_GHZ = 20;
  static final double MAX_CYCLES = 100_000;
  static final double MAX_NS = 1_000_000;

  /** The facts every profile gives, as keys under {@code facts}. */
  static final Set<String> KEYS =
      Set.of(
          "clock-ghz",
          "l1-load-cycles",
          "l2-load-cycles",
          "call-cycles",
          "retpoline-cycles",
          "store-cycles",
          "rep-stos-startup-cycles",
          "rep-stos-qword-cycles",
          "atomic-cycles",
          "irq-save-restore-cycles",
          "cacheline-transfer-ns",
          "ktime-get-ns",
          "syscall-ns",
          "blkg-associate-ns",
          "tick-ns",
          "sched-softirq-ns",
          "vmstat-kworker-ns");

  /** Nanoseconds of {@code cycles} at this clock. */
  public double ns(double cycles) {
    return cycles / clockGhz;
  }

  static MicroArch from(SettingsReader r, String path) {
    for (String key : new TreeSet<>(r.config().getObject(path).keySet())) {
      if (!KEYS.contains(key)) {
        String near = KeySuggestion.nearestOf(key, KEYS);
        throw new ConfigError(
            path
                + "."
                + OneLine.of(key)
                + " is not a fact"
                + (near == null ? "" : " (did you mean " + near + "?)")
                + ": known "
                + String.join(", ", new TreeSet<>(KEYS)));
      }
    }
    return new MicroArch(
        r.doubleIn(path + ".clock-ghz", MIN_GHZ, MAX_GHZ, "GHz"),
        r.doubleIn(path + ".l1-load-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".l2-load-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".call-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".retpoline-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".store-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".rep-stos-startup-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".rep-stos-qword-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".atomic-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".irq-save-restore-cycles", 0, MAX_CYCLES, "cycles"),
        r.doubleIn(path + ".cacheline-transfer-ns", 0, MAX_NS, "ns"),
        r.doubleIn(path + ".ktime-get-ns", 0, MAX_NS, "ns"),
        r.doubleIn(path + ".syscall-ns", 0, MAX_NS, "ns"),
        r.doubleIn(path + ".blkg-associate-ns", 0, MAX_NS, "ns"),
        r.doubleIn(path + ".tick-ns", 0, MAX_NS, "ns"),
        r.doubleIn(path + ".sched-softirq-ns", 0, MAX_NS, "ns"),
        r.doubleIn(path + ".vmstat-kworker-ns", 0, MAX_NS, "ns"));
  }
}

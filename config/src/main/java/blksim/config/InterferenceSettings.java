package blksim.config;

/**
 * What interrupts the CPUs that run the load, and how the path's calls vary, each source switchable
 * ({@code interference.enabled = false} switches them all off).
 *
 * @param tick whether the scheduler tick runs on the submitters' CPUs
 * @param hz CONFIG_HZ: ticks per second
 * @param loadBalance whether the tick raises SCHED_SOFTIRQ for the periodic load balance
 * @param vmstat whether the vmstat kworker visits CPUs whose VM counters the load changes (-B0)
 * @param vmstatIntervalNs vm.stat_interval, in ns
 * @param variation whether each call of a kernel function costs its mean times a random factor
 * @param cv the coefficient of variation of that factor (a lognormal of mean 1)
 */
public record InterferenceSettings(
    boolean tick,
    int hz,
    boolean loadBalance,
    boolean vmstat,
    long vmstatIntervalNs,
    boolean variation,
    double cv) {
  /** load_balance's busy_factor (kernel/sched/topology.c sd_init, 16 since 5.10). */
  public static final int BUSY_FACTOR = 16;

  /** vm.stat_interval up to an hour. */
  static final long MAX_INTERVAL_NS = 3_600_000_000_000L;

  /** The largest coefficient of variation accepted: a call twice as spread as its mean. */
  public static final double MAX_CV = 2;

  /** Virtual nanoseconds between two ticks. */
  public long tickPeriodNs() {
    return 1_000_000_000L / hz;
  }

  /**
   * Virtual nanoseconds between two load balances of a busy CPU in a domain of {@code cpus} CPUs:
   * max_interval (2 x cpus ms) x busy_factor, rounded up to whole ticks as msecs_to_jiffies does.
   */
  public long balanceIntervalNs(int cpus) {
    long ns = 2L * cpus * BUSY_FACTOR * 1_000_000L;
    long tick = tickPeriodNs();
    return (ns + tick - 1) / tick * tick;
  }

  /** Whether any source of randomness here is on (the tick's phase, the calls' factors). */
  public boolean anyRandom() {
    return tick || variation;
  }

  /** The tick rates a kernel can be built with (kernel/Kconfig.hz: HZ_100 to HZ_1000). */
  static final java.util.Set<Integer> CONFIG_HZ = java.util.Set.of(100, 250, 300, 1000);

  static InterferenceSettings from(SettingsReader r) {
    String p = "blksim.interference.";
    boolean on = r.bool(p + "enabled");
    String t = p + "tick.";
    String v = p + "variation.";
    boolean tick = r.bool(t + "enabled");
    int hz = r.intIn(t + "hz", 1, 100_000);
    if (!CONFIG_HZ.contains(hz)) {
      throw new ConfigError(
          r.where(t + "hz")
              + t
              + "hz = "
              + hz
              + " is not a CONFIG_HZ: accepted 100, 250, 300, 1000 (kernel/Kconfig.hz)");
    }
    boolean balance = r.bool(t + "load-balance");
    String w = p + "vmstat.";
    // the kworker's timer fires in a tick: without the tick, no vmstat either
    boolean vmstat = on && tick && r.bool(w + "enabled");
    long interval = r.durationNs(w + "interval", 1_000, MAX_INTERVAL_NS);
    boolean vary = r.bool(v + "enabled");
    double cv = r.doubleIn(v + "cv", 0, MAX_CV, "(the spread of a call's cost over its mean)");
    return new InterferenceSettings(
        on && tick, hz, balance, vmstat, interval, on && vary && cv > 0, cv);
  }
}

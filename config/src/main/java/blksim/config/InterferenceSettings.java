package blksim.config;

/**
 * What interrupts the CPUs that run the load, each source switchable.
 *
 * @param tick whether the scheduler tick runs on the submitters' CPUs
 * @param hz CONFIG_HZ: ticks per second
 * @param loadBalance whether the tick raises SCHED_SOFTIRQ for the periodic load balance
 */
public record InterferenceSettings(boolean tick, int hz, boolean loadBalance) {
  /** load_balance's busy_factor (kernel/sched/topology.c sd_init, 16 since 5.10). */
  public static final int BUSY_FACTOR = 16;

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

  static InterferenceSettings from(SettingsReader r) {
    String p = "blksim.interference.tick.";
    return new InterferenceSettings(
        r.bool(p + "enabled"), r.intIn(p + "hz", 100, 10_000), r.bool(p + "load-balance"));
  }
}

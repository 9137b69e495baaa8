package blksim.config;

/**
 * What interrupts the CPUs that run the load, each source switchable.
 *
 * @param tick whether the scheduler tick runs on the submitters' CPUs
 * @param hz CONFIG_HZ: ticks per second
 */
public record InterferenceSettings(boolean tick, int hz) {
  /** Virtual nanoseconds between two ticks. */
  public long tickPeriodNs() {
    return 1_000_000_000L / hz;
  }

  static InterferenceSettings from(SettingsReader r) {
    String p = "blksim.interference.tick.";
    return new InterferenceSettings(r.bool(p + "enabled"), r.intIn(p + "hz", 100, 10_000));
  }
}

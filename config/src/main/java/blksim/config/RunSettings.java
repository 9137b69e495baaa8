package blksim.config;

/**
 * How long a run lasts and how it reports, in virtual time.
 *
 * @param runtimeNs virtual time the load runs for, in ns
 * @param statusIntervalNs period of the t/io_uring status line, in ns
 * @param seed root seed of every random stream
 */
public record RunSettings(long runtimeNs, long statusIntervalNs, long seed) {
  /** The longest run accepted: one virtual hour keeps picosecond times far inside a long. */
  public static final long MAX_RUNTIME_NS = 3_600_000_000_000L;

  public RunSettings {
    if (runtimeNs <= 0 || runtimeNs > MAX_RUNTIME_NS) {
      throw new IllegalArgumentException(
          "runtimeNs must be in 1.." + MAX_RUNTIME_NS + ", was " + runtimeNs);
    }
    if (statusIntervalNs <= 0 || statusIntervalNs > runtimeNs) {
      throw new IllegalArgumentException(
          "statusIntervalNs must be in 1.." + runtimeNs + ", was " + statusIntervalNs);
    }
  }

  static RunSettings from(SettingsReader r) {
    long runtimeNs = r.durationNs("blksim.run.runtime", 1);
    if (runtimeNs > MAX_RUNTIME_NS) {
      throw new ConfigError(
          "blksim.run.runtime = "
              + runtimeNs
              + " ns is too long: accepted up to 1h of virtual time");
    }
    long intervalNs = r.durationNs("blksim.run.status-interval", 0);
    if (intervalNs == 0) {
      intervalNs = Math.max(1, runtimeNs / 10);
    }
    if (intervalNs > runtimeNs) {
      throw new ConfigError(
          "blksim.run.status-interval = "
              + intervalNs
              + " ns is longer than the runtime ("
              + runtimeNs
              + " ns): accepted 0 (a tenth) up to the runtime");
    }
    long seed = r.longIn("blksim.run.seed", Long.MIN_VALUE, Long.MAX_VALUE);
    return new RunSettings(runtimeNs, intervalNs, seed);
  }
}

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

  /** The most status intervals a run may have: t/io_uring prints one a second. */
  public static final long MAX_INTERVALS = 100_000;

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
    long runtimeNs = r.durationNs("blksim.run.runtime", 1, MAX_RUNTIME_NS);
    long intervalNs = r.durationNs("blksim.run.status-interval", 0, MAX_RUNTIME_NS);
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
    if (runtimeNs / intervalNs > MAX_INTERVALS) {
      // each interval is a status line and a record kept to the end of the run
      throw new ConfigError(
          r.where("blksim.run.status-interval")
              + "blksim.run.status-interval = "
              + VirtualDuration.text(intervalNs)
              + " gives "
              + runtimeNs / intervalNs
              + " status lines in "
              + VirtualDuration.text(runtimeNs)
              + ": accepted at most "
              + MAX_INTERVALS
              + ", an interval of at least "
              + VirtualDuration.text(Math.max(1, (runtimeNs + MAX_INTERVALS - 1) / MAX_INTERVALS)));
    }
    long seed = r.longIn("blksim.run.seed", Long.MIN_VALUE, Long.MAX_VALUE);
    return new RunSettings(runtimeNs, intervalNs, seed);
  }
}

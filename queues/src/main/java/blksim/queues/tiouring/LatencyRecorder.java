package blksim.queues.tiouring;

/** Receives one submit-to-reap latency, in picoseconds of virtual time. */
@FunctionalInterface
public interface LatencyRecorder {
  void record(long latencyPs);
}

package blksim.queues.kernel.sched;

/**
 * When a CPU's scheduler tick fires ({@code tick_sched_timer}): every {@code periodPs} (1/HZ) from
 * {@code phasePs}, on every CPU at once ({@code tick_setup_sched_timer} puts them on one jiffy
 * boundary unless {@code skew_tick=1}).
 */
public record SchedTick(long periodPs, long phasePs) {
  public SchedTick {
    if (periodPs <= 0 || phasePs < 0 || phasePs >= periodPs) {
      throw new IllegalArgumentException("tick period " + periodPs + " ps, phase " + phasePs);
    }
  }

  /** The last tick at or before {@code t}, or -1 before the first. */
  public long atOrBefore(long t) {
    if (t < phasePs) {
      return -1;
    }
    return phasePs + (t - phasePs) / periodPs * periodPs;
  }
}

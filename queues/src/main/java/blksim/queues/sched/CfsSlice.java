package blksim.queues.sched;

/**
 * The CFS time slice of a task that shares its CPU with one other runnable task of the same weight
 * ({@link CfsRq#schedSlice}), and the scheduler tick that ends it (kernel/sched/fair.c, 5.16).
 *
 * <p>{@code sched_slice} gives each of {@code nr_running} tasks its share of {@code __sched_period}
 * (with two tasks: half of {@code sysctl_sched_latency}), at least {@code
 * sysctl_sched_min_granularity}. Both are scaled at boot by {@code get_update_sysctl_factor}: 1 +
 * ilog2 of the online CPUs, at most 8 counted (SCHED_TUNABLESCALING_LOG). A running task is told to
 * reschedule only by a tick: {@code check_preempt_tick} sets TIF_NEED_RESCHED at the first tick at
 * which the task has run longer than its slice since it was picked ({@code delta_exec >
 * ideal_runtime}). The ticks come every period from a phase of the CPU's own.
 */
public final class CfsSlice {
  private final long slicePs;
  private final long tickPeriodPs;
  private final long tickPhasePs;

  /**
   * @param onlineCpus the machine's CPUs, which scale the tunables
   * @param tickPeriodPs 1/HZ
   * @param tickPhasePs the CPU's first tick, in [0, tickPeriodPs)
   */
  public CfsSlice(int onlineCpus, long tickPeriodPs, long tickPhasePs) {
    if (onlineCpus < 1 || tickPeriodPs <= 0 || tickPhasePs < 0 || tickPhasePs >= tickPeriodPs) {
      throw new IllegalArgumentException(
          "CPUs " + onlineCpus + ", tick period " + tickPeriodPs + " ps, phase " + tickPhasePs);
    }
    CfsRq rq = new CfsRq(onlineCpus);
    rq.fork("task", 0);
    this.slicePs = rq.schedSlice(rq.fork("other", 0)); // sched_slice, with two runnable
    this.tickPeriodPs = tickPeriodPs;
    this.tickPhasePs = tickPhasePs;
  }

  /** The task's slice, in ps. */
  public long slicePs() {
    return slicePs;
  }

  /**
   * The tick at which {@code check_preempt_tick} finds that a task picked at {@code pickedAtPs} and
   * running since has had more than its slice: the first tick strictly more than a slice later.
   */
  public long reschedTickPs(long pickedAtPs) {
    long after = pickedAtPs + slicePs; // a tick must come later than this
    if (after < tickPhasePs) {
      return tickPhasePs;
    }
    long k = (after - tickPhasePs) / tickPeriodPs + 1;
    return tickPhasePs + k * tickPeriodPs;
  }
}

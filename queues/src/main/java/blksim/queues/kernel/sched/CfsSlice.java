package blksim.queues.kernel.sched;

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
  private final SchedTick tick;

  /**
   * @param onlineCpus the machine's CPUs, which scale the tunables
   * @param tickPeriodPs 1/HZ
   * @param tickPhasePs the CPU's first tick, in [0, tickPeriodPs)
   */
  public CfsSlice(int onlineCpus, long tickPeriodPs, long tickPhasePs) {
    this(onlineCpus, new SchedTick(tickPeriodPs, tickPhasePs));
  }

  /**
   * @param onlineCpus the machine's CPUs, which scale the tunables
   * @param tick the scheduler tick that ends the slice
   */
  public CfsSlice(int onlineCpus, SchedTick tick) {
    CfsRq rq = new CfsRq(onlineCpus);
    rq.fork("task", 0);
    this.slicePs = rq.schedSlice(rq.fork("other", 0)); // sched_slice, with two runnable
    this.tick = tick;
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
    long last = tick.atOrBefore(pickedAtPs + slicePs); // a tick must come later than this
    return last < 0 ? tick.phasePs() : last + tick.periodPs();
  }
}

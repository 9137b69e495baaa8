package blksim.queues.kernel.sched;

import blksim.queues.time.VirtualTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * One CPU's run queue of the fair class ({@code struct cfs_rq}, kernel/sched/fair.c 5.15 to 6.1,
 * before EEVDF): its tasks ordered by virtual runtime, the one that runs ({@code curr}), and the
 * rules that pick, place and preempt them. Every task is SCHED_NORMAL at nice 0, in no cgroup of
 * its own; times are virtual, in ps.
 *
 * <ul>
 *   <li>The tunables are scaled at boot by {@code get_update_sysctl_factor},
 *       SCHED_TUNABLESCALING_LOG: 1 + ilog2 of the online CPUs, at most 8 counted; {@code
 *       sysctl_sched_latency} 6 ms, {@code sysctl_sched_min_granularity} 0.75 ms and {@code
 *       sysctl_sched_wakeup_granularity} 1 ms, each times the factor.
 *   <li>{@code sched_slice}: a task's share of {@code __sched_period} (the latency for up to {@code
 *       sched_nr_latency} = 8 tasks, else that many minimum granularities), at least the minimum
 *       granularity (BASE_SLICE).
 *   <li>{@code place_entity}: a new task starts a slice behind {@code min_vruntime} (START_DEBIT);
 *       a waking one no further ahead than half the latency (GENTLE_FAIR_SLEEPERS), never
 *       backwards.
 *   <li>{@code check_preempt_wakeup}: a woken task preempts the running one when it is more than a
 *       wakeup granularity behind it in virtual time.
 *   <li>{@code check_preempt_tick}: the tick asks the running task to reschedule when it has run
 *       longer than its slice since it was picked, or, after the minimum granularity, when it is
 *       more than a slice ahead of the leftmost.
 *   <li>{@code pick_next_entity}: the leftmost; a tie goes to the task queued first (the rbtree
 *       puts an equal key to the right). The LAST and NEXT buddies are not modelled: LAST_BUDDY is
 *       set only with {@code sched_nr_latency} tasks or more, NEXT_BUDDY is off by default.
 * </ul>
 *
 * <p>Asking to reschedule sets {@code TIF_NEED_RESCHED} only; the CPU switches where the running
 * task reaches a point of preemption (under CONFIG_PREEMPT_VOLUNTARY: its return to user space, a
 * {@code cond_resched}, or its sleep) and calls {@link #schedule}.
 */
public final class CfsRq {
  /** {@code normalized_sysctl_sched_latency}: 6 ms. */
  public static final long SCHED_LATENCY_NS = 6_000_000L;

  /** {@code normalized_sysctl_sched_min_granularity}: 0.75 ms. */
  public static final long SCHED_MIN_GRANULARITY_NS = 750_000L;

  /** {@code normalized_sysctl_sched_wakeup_granularity}: 1 ms. */
  public static final long SCHED_WAKEUP_GRANULARITY_NS = 1_000_000L;

  /** {@code sched_nr_latency}: up to this many tasks share one latency period. */
  public static final int SCHED_NR_LATENCY = 8;

  private final long latency;
  private final long minGranularity;
  private final long wakeupGranularity;
  private final TreeSet<Queued> timeline =
      new TreeSet<>(Comparator.comparingLong(Queued::vruntime).thenComparingLong(Queued::seq));
  private final List<SchedEntity> tasks = new ArrayList<>();
  private SchedEntity curr;
  private long minVruntime;
  private int nrRunning;
  private boolean needResched;
  private long seq;
  private long nrSwitches;

  /** An entity on the timeline, with the order it was queued in. */
  private record Queued(SchedEntity se, long vruntime, long seq) {}

  /**
   * @param onlineCpus the machine's CPUs, which scale the tunables
   */
  public CfsRq(int onlineCpus) {
    if (onlineCpus < 1) {
      throw new IllegalArgumentException("online CPUs " + onlineCpus);
    }
    long factor = factor(onlineCpus);
    this.latency = VirtualTime.ps(SCHED_LATENCY_NS * factor);
    this.minGranularity = VirtualTime.ps(SCHED_MIN_GRANULARITY_NS * factor);
    this.wakeupGranularity = VirtualTime.ps(SCHED_WAKEUP_GRANULARITY_NS * factor);
  }

  /** {@code get_update_sysctl_factor} under SCHED_TUNABLESCALING_LOG. */
  public static long factor(int onlineCpus) {
    int cpus = Math.min(onlineCpus, 8);
    return 1 + (31 - Integer.numberOfLeadingZeros(cpus));
  }

  /** {@code __sched_period}: the time in which each of {@code nr} runnable tasks runs once. */
  long schedPeriod(int nr) {
    return nr > SCHED_NR_LATENCY ? nr * minGranularity : latency;
  }

  /**
   * {@code sched_slice}: the time {@code se} runs before the tick preempts it, counting it among
   * the runnable if it is not yet.
   */
  public long schedSlice(SchedEntity se) {
    boolean onRq = se.state == SchedEntity.State.RUNNING || se.state == SchedEntity.State.RUNNABLE;
    int nr = nrRunning + (onRq ? 0 : 1);
    return Math.max(schedPeriod(nr) / nr, minGranularity);
  }

  /**
   * {@code wake_up_new_task}: a new task {@code comm}, placed a slice behind {@code min_vruntime}
   * and queued.
   */
  public SchedEntity fork(String comm, long now) {
    SchedEntity se = new SchedEntity(comm, tasks.size());
    tasks.add(se);
    updateCurr(now);
    se.vruntime = minVruntime + schedSlice(se); // START_DEBIT
    enqueue(se, now);
    checkPreemptWakeup(se);
    return se;
  }

  /**
   * A new task {@code comm} forked on another CPU, where {@code nrRunningThere} tasks ran, then
   * moved here ({@code migrate_task_rq_fair}): its START_DEBIT is the slice it had there, and it
   * keeps it relative to this run queue's {@code min_vruntime}. A thread made by a parent on
   * another CPU and pinned here (t/io_uring's submitters, made by its main thread) comes this way,
   * each with the same debit however many are here already.
   */
  public SchedEntity forkElsewhere(String comm, long now, int nrRunningThere) {
    if (nrRunningThere < 0) {
      throw new IllegalArgumentException("tasks running on the parent's CPU: " + nrRunningThere);
    }
    SchedEntity se = new SchedEntity(comm, tasks.size());
    tasks.add(se);
    updateCurr(now);
    int nr = nrRunningThere + 1;
    se.vruntime = minVruntime + Math.max(schedPeriod(nr) / nr, minGranularity);
    enqueue(se, now);
    checkPreemptWakeup(se);
    return se;
  }

  /**
   * {@code try_to_wake_up} of a sleeping {@code se}: placed ({@code place_entity}), queued, and
   * checked against the running task; the CPU, if idle, runs it at its next {@link #schedule}.
   */
  public void wakeUp(SchedEntity se, long now) {
    if (se.state != SchedEntity.State.SLEEPING) {
      throw new IllegalStateException("woke " + se + ", which does not sleep");
    }
    updateCurr(now);
    long thresh = latency / 2; // GENTLE_FAIR_SLEEPERS
    se.vruntime = Math.max(se.vruntime, minVruntime - thresh);
    enqueue(se, now);
    checkPreemptWakeup(se);
  }

  /** The running task goes to sleep ({@code dequeue_entity} with DEQUEUE_SLEEP). */
  public void sleep(long now) {
    dequeueCurr(now, SchedEntity.State.SLEEPING);
  }

  /** The running task exits ({@code do_exit}): dequeued for good. */
  public void exit(long now) {
    dequeueCurr(now, SchedEntity.State.DEAD);
  }

  /**
   * The scheduler tick on this CPU ({@code entity_tick}): the running task's time is brought up to
   * date and, with another runnable, {@code check_preempt_tick} may ask it to reschedule.
   */
  public void tick(long now) {
    updateCurr(now);
    if (curr == null || nrRunning <= 1 || needResched) {
      return;
    }
    long idealRuntime = schedSlice(curr);
    long deltaExec = curr.sumExecRuntime - curr.prevSumExecRuntime;
    if (deltaExec > idealRuntime) {
      needResched = true;
      return;
    }
    // ensure that a task that missed wakeup preemption by a narrow margin does not have to wait
    // for a full slice
    if (deltaExec < minGranularity || timeline.isEmpty()) {
      return;
    }
    long delta = curr.vruntime - timeline.first().vruntime();
    if (delta > idealRuntime) {
      needResched = true;
    }
  }

  /**
   * Whether a tick at {@code now} would ask the running task to reschedule, were nothing else to
   * happen before it ({@link #tick}'s {@code check_preempt_tick}, without its effects).
   */
  public boolean tickWouldPreempt(long now) {
    if (curr == null || nrRunning <= 1 || needResched) {
      return needResched;
    }
    long ran = Math.max(0, now - curr.execStart);
    long idealRuntime = schedSlice(curr);
    long deltaExec = curr.sumExecRuntime + ran - curr.prevSumExecRuntime;
    if (deltaExec > idealRuntime) {
      return true;
    }
    if (deltaExec < minGranularity || timeline.isEmpty()) {
      return false;
    }
    return curr.vruntime + ran - timeline.first().vruntime() > idealRuntime;
  }

  /**
   * {@code __schedule}: the running task, if still runnable, goes back on the timeline ({@code
   * put_prev_entity}) and the leftmost runs ({@code set_next_entity}); TIF_NEED_RESCHED is cleared.
   *
   * @return the task that runs now, the same or another; null when none is runnable (idle)
   */
  public SchedEntity schedule(long now) {
    SchedEntity prev = curr;
    if (prev != null) {
      updateCurr(now);
      prev.state = SchedEntity.State.RUNNABLE;
      prev.lastQueued = now;
      timeline.add(new Queued(prev, prev.vruntime, seq++));
      curr = null;
    }
    needResched = false;
    if (timeline.isEmpty()) {
      return null;
    }
    SchedEntity next = timeline.pollFirst().se();
    if (prev != null && next != prev) {
      prev.nivcsw++;
      nrSwitches++;
    }
    if (next != prev) {
      next.runDelay += now - next.lastQueued; // sched_info_arrive, at a switch only
      next.pcount++;
    }
    next.state = SchedEntity.State.RUNNING;
    next.execStart = now;
    next.prevSumExecRuntime = next.sumExecRuntime;
    curr = next;
    return next;
  }

  /** {@code TIF_NEED_RESCHED} of the running task: it switches at its next point of preemption. */
  public boolean needResched() {
    return needResched;
  }

  /** {@code cfs_rq->curr}: the task that runs, or null. */
  public SchedEntity curr() {
    return curr;
  }

  /** {@code cfs_rq->nr_running}: the runnable tasks, the running one among them. */
  public int nrRunning() {
    return nrRunning;
  }

  /** {@code cfs_rq->min_vruntime}, in ps. */
  public long minVruntime() {
    return minVruntime;
  }

  /** Switches out of a task, asleep or preempted: the sum of its tasks' nvcsw and nivcsw. */
  public long nrSwitches() {
    return nrSwitches;
  }

  /** The tasks this run queue met, in the order it met them. */
  public List<SchedEntity> tasks() {
    return List.copyOf(tasks);
  }

  private void enqueue(SchedEntity se, long now) {
    se.state = SchedEntity.State.RUNNABLE;
    se.lastQueued = now; // sched_info_enqueue
    timeline.add(new Queued(se, se.vruntime, seq++));
    nrRunning++;
  }

  private void dequeueCurr(long now, SchedEntity.State to) {
    if (curr == null) {
      throw new IllegalStateException("no task runs to " + to);
    }
    updateCurr(now);
    curr.state = to;
    curr.nvcsw++;
    nrSwitches++;
    nrRunning--;
    curr = null;
    needResched = false;
    updateMinVruntime();
  }

  /** {@code check_preempt_wakeup}, for tasks of one weight. */
  private void checkPreemptWakeup(SchedEntity woken) {
    if (curr == null || needResched) {
      return; // an idle CPU runs it at its next schedule
    }
    long vdiff = curr.vruntime - woken.vruntime;
    if (vdiff > wakeupGranularity) {
      needResched = true;
    }
  }

  /** {@code update_curr}: the running task's time and virtual time, up to {@code now}. */
  private void updateCurr(long now) {
    if (curr == null) {
      return;
    }
    long deltaExec = now - curr.execStart;
    if (deltaExec <= 0) {
      return;
    }
    curr.execStart = now;
    curr.sumExecRuntime += deltaExec;
    curr.vruntime += deltaExec; // calc_delta_fair at NICE_0_LOAD
    updateMinVruntime();
  }

  /** {@code update_min_vruntime}: it follows the smaller of curr and the leftmost, never back. */
  private void updateMinVruntime() {
    long vruntime = minVruntime;
    if (curr != null) {
      vruntime = curr.vruntime;
    }
    if (!timeline.isEmpty()) {
      long left = timeline.first().vruntime();
      vruntime = curr == null ? left : Math.min(vruntime, left);
    }
    minVruntime = Math.max(minVruntime, vruntime);
  }
}

package blksim.queues.kernel.sched;

/**
 * A task as the fair class sees it ({@code struct sched_entity}, with the {@code sched_info} and
 * context-switch counts of its {@code task_struct}): its virtual runtime and what it ran and
 * waited. Every task here is SCHED_NORMAL at nice 0 (weight NICE_0_LOAD), so virtual time advances
 * as fast as the time it runs ({@code calc_delta_fair} is the identity).
 */
public final class SchedEntity {
  /** What the task is doing on its CPU. */
  public enum State {
    /** {@code cfs_rq->curr}: it runs. */
    RUNNING,
    /** On the run queue's timeline, waiting to be picked. */
    RUNNABLE,
    /** Dequeued: it sleeps (TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE). */
    SLEEPING,
    /** It exited: dequeued for good. */
    DEAD
  }

  private final String comm;
  private final int id;
  State state = State.SLEEPING;
  long vruntime;
  long sumExecRuntime;
  long prevSumExecRuntime;
  long execStart;
  long lastQueued;
  long runDelay;
  long pcount;
  long nvcsw;
  long nivcsw;

  SchedEntity(String comm, int id) {
    this.comm = comm;
    this.id = id;
  }

  /** The task's name, as {@code comm} in /proc/PID/stat. */
  public String comm() {
    return comm;
  }

  /** The order in which its run queue met it: ties of vruntime go to the lower. */
  int id() {
    return id;
  }

  public State state() {
    return state;
  }

  /** {@code se->vruntime}, in ps. */
  public long vruntime() {
    return vruntime;
  }

  /** {@code se->sum_exec_runtime}: the time it ran, in ps (as of its run queue's last update). */
  public long sumExecRuntime() {
    return sumExecRuntime;
  }

  /**
   * {@code sched_info.run_delay}: the time it waited on the run queue, runnable and not running, in
   * ps (the second field of /proc/PID/schedstat).
   */
  public long runDelay() {
    return runDelay;
  }

  /** {@code sched_info.pcount}: the times it was picked to run. */
  public long pcount() {
    return pcount;
  }

  /** {@code nvcsw}: switches out because it slept. */
  public long nvcsw() {
    return nvcsw;
  }

  /** {@code nivcsw}: switches out while still runnable (preempted). */
  public long nivcsw() {
    return nivcsw;
  }

  @Override
  public String toString() {
    return comm + " " + state + " vruntime " + vruntime;
  }
}

package blksim.queues.kernel.sched;

/**
 * A CPU's run queue ({@code struct rq}): its clock, its fair class's queue ({@link CfsRq}) and the
 * scheduler tick that reaches it. The clock ({@code rq->clock}, {@code update_rq_clock}) never goes
 * back: a caller that tells it of an earlier time is told of the later one. The tick's {@code
 * check_preempt_tick} is seen where the running task next asks for TIF_NEED_RESCHED ({@link
 * #needResched}); a tick that came while at most one task was runnable did nothing ({@code
 * entity_tick} checks only with more than one), so it does nothing later either.
 */
public final class Rq {
  private final CfsRq cfs;
  private final SchedTick tick;
  private long clock;
  private long tickSeen = -1;
  private long sharedSince = -1;

  /**
   * @param onlineCpus the machine's CPUs, which scale the scheduler's tunables
   * @param tick when this CPU's scheduler tick fires
   */
  public Rq(int onlineCpus, SchedTick tick) {
    this.cfs = new CfsRq(onlineCpus);
    this.tick = tick;
  }

  /** {@code update_rq_clock}: the run queue's time, {@code t} or the later one it was told of. */
  public long clock(long t) {
    clock = Math.max(clock, t);
    return clock;
  }

  /**
   * A thread made on another CPU with its parent, and pinned here ({@link CfsRq#forkElsewhere}).
   */
  public SchedEntity forkPinned(String comm, long t) {
    SchedEntity se = cfs.forkElsewhere(comm, clock(t), 1);
    changed();
    return se;
  }

  /**
   * {@code wake_up_new_task} of a task made here at {@code t} by a task of this CPU ({@link
   * CfsRq#fork}): placed a slice behind, queued and checked against the running task.
   */
  public SchedEntity fork(String comm, long t) {
    SchedEntity se = cfs.fork(comm, clock(t));
    changed();
    return se;
  }

  /** {@code try_to_wake_up} of {@code se} at {@code t}, if it sleeps. */
  public void wakeUp(SchedEntity se, long t) {
    if (se.state() == SchedEntity.State.SLEEPING) {
      cfs.wakeUp(se, clock(t));
      changed();
    }
  }

  /** The running task leaves the CPU at {@code t}: for good if {@code exits}, else asleep. */
  public void dequeueCurr(long t, boolean exits) {
    if (exits) {
      cfs.exit(clock(t));
    } else {
      cfs.sleep(clock(t));
    }
    changed();
  }

  /** {@code __schedule} at {@code t}: the task that runs now, or null (idle). */
  public SchedEntity schedule(long t) {
    return cfs.schedule(clock(t));
  }

  /**
   * TIF_NEED_RESCHED of the running task at {@code t}: the last tick up to then is seen first
   * (once, and only if tasks took turns by then), then what a wake-up asked. Never with one task
   * runnable.
   */
  public boolean needResched(long t) {
    if (cfs.nrRunning() <= 1) {
      return false;
    }
    long last = tick.atOrBefore(t);
    if (last > tickSeen && last >= sharedSince) {
      tickSeen = last;
      cfs.tick(clock(last));
    }
    return cfs.needResched();
  }

  /**
   * The first tick at or after {@code t} at which the running task would be asked to reschedule
   * ({@link #needResched} true from then on), if nothing else happens meanwhile: {@code t} itself
   * when it would be already, {@link Long#MAX_VALUE} while at most one task is runnable.
   */
  public long reschedTick(long t) {
    if (cfs.nrRunning() <= 1 || cfs.curr() == null) {
      return Long.MAX_VALUE;
    }
    if (cfs.needResched()) {
      return t;
    }
    long last = tick.atOrBefore(t);
    if (last > tickSeen && last >= sharedSince && cfs.tickWouldPreempt(last)) {
      return t;
    }
    long next = last < 0 ? tick.phasePs() : last + tick.periodPs();
    // the running task's lead only grows: its slice ends within a period past the latency
    for (int i = 0; i < 1_000_000; i++, next += tick.periodPs()) {
      if (next >= sharedSince && cfs.tickWouldPreempt(next)) {
        return next;
      }
    }
    throw new IllegalStateException("no tick within a million ends the slice of " + cfs.curr());
  }

  /** The runnable tasks, the running one among them. */
  public int nrRunning() {
    return cfs.nrRunning();
  }

  /** Its fair class's queue, for what its tasks ran and waited. */
  public CfsRq cfs() {
    return cfs;
  }

  /** After a change of the runnable: since when tasks take turns, or -1 while at most one is. */
  private void changed() {
    if (cfs.nrRunning() <= 1) {
      sharedSince = -1;
    } else if (sharedSince < 0) {
      sharedSince = clock;
    }
  }
}

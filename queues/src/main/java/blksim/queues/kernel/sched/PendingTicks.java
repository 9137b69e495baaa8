package blksim.queues.kernel.sched;

/**
 * The scheduler ticks that fired on a CPU while a call of its running task was out, with the
 * SCHED_SOFTIRQs they raised ({@code trigger_load_balance}) and the vmstat kworker visits their
 * timers woke ({@link TickSched}). The model does not cut a step: the hard interrupt at the call's
 * end takes them all, each tick's work once (docs/model.md section 2, "Completion": interrupts wait
 * for the next step boundary; docs/kernel.md on the tick).
 */
public final class PendingTicks {
  /**
   * What a hard interrupt takes of the scheduler tick: the ticks that waited, the load balances
   * among them and the vmstat kworker visits.
   */
  public record Ticks(int ticks, int balances, int vmstats) {
    /** No tick waited. */
    public static final Ticks NONE = new Ticks(0, 0, 0);
  }

  private int ticks;
  private int balances;
  private int vmstats;

  /** A tick fired while the call was out; it raised a load balance, it woke the kworker. */
  public void add(boolean balance, boolean vmstat) {
    ticks++;
    balances += balance ? 1 : 0;
    vmstats += vmstat ? 1 : 0;
  }

  /** Whether no tick waits. */
  public boolean isEmpty() {
    return ticks == 0;
  }

  /** The ticks that waited, for the interrupt that takes them; none wait after it. */
  public Ticks drain() {
    Ticks d = ticks == 0 ? Ticks.NONE : new Ticks(ticks, balances, vmstats);
    ticks = 0;
    balances = 0;
    vmstats = 0;
    return d;
  }
}

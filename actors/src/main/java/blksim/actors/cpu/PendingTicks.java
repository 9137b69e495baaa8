package blksim.actors.cpu;

/**
 * The scheduler ticks that fired while a call of the thread was out, the SCHED_SOFTIRQs they raised
 * and the kworkers their timers woke: they run in the interrupt at the call's end, and after it.
 */
final class PendingTicks {
  /** What an interrupt takes: ticks, load balances among them, vmstat kworker visits after it. */
  record Drained(int ticks, int balances, int vmstats) {
    static final Drained NONE = new Drained(0, 0, 0);
  }

  private int ticks;
  private int balances;
  private int vmstats;

  void add(boolean balance, boolean vmstat) {
    ticks++;
    balances += balance ? 1 : 0;
    vmstats += vmstat ? 1 : 0;
  }

  boolean isEmpty() {
    return ticks == 0;
  }

  Drained drain() {
    Drained d = ticks == 0 ? Drained.NONE : new Drained(ticks, balances, vmstats);
    ticks = 0;
    balances = 0;
    vmstats = 0;
    return d;
  }
}

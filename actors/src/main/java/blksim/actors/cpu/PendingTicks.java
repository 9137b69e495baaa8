package blksim.actors.cpu;

/**
 * The scheduler ticks that fired while a call of the thread was out, and the SCHED_SOFTIRQs they
 * raised: they run in the interrupt at the call's end.
 */
final class PendingTicks {
  /** What an interrupt takes: ticks, and load balances among them. */
  record Drained(int ticks, int balances) {
    static final Drained NONE = new Drained(0, 0);
  }

  private int ticks;
  private int balances;

  void add(boolean balance) {
    ticks++;
    balances += balance ? 1 : 0;
  }

  boolean isEmpty() {
    return ticks == 0;
  }

  Drained drain() {
    Drained d = ticks == 0 ? Drained.NONE : new Drained(ticks, balances);
    ticks = 0;
    balances = 0;
    return d;
  }
}

package blksim.queues.kernel.sched;

import blksim.config.BlksimSettings;
import blksim.config.InterferenceSettings;
import blksim.queues.random.RandomStreams;
import blksim.queues.time.VirtualTime;

/**
 * One CPU's scheduler tick timer ({@code struct tick_sched}, kernel/time/tick-sched.c;
 * interference.tick): the tick at {@code atPs}, the next {@code periodPs} (1/HZ) later, up to the
 * runtime's end ({@code untilPs}). A tick at or after {@code balanceAtPs} on a busy CPU also raises
 * SCHED_SOFTIRQ ({@code trigger_load_balance}), the next balance {@code balanceEveryPs} later (0:
 * no load balance). A tick at or after {@code vmstatAtPs} on a busy CPU also fires vmstat_update's
 * timer, whose kworker runs as the interrupt returns, the next {@code vmstatEveryPs} later (0: the
 * CPU's VM counters do not change, no kworker). See docs/kernel.md on the tick.
 */
public record TickSched(
    long atPs,
    long periodPs,
    long untilPs,
    long balanceAtPs,
    long balanceEveryPs,
    long vmstatAtPs,
    long vmstatEveryPs) {

  /**
   * The first tick of {@code cpu} of {@code nrCpus}, or null when it does not tick within the run.
   * The kernel puts every CPU's tick on the same jiffy boundary ({@code tick_setup_sched_timer}
   * without skew_tick; a CPU leaving NO_HZ idle forwards its timer from its last tick), so the
   * ticks have one phase for the machine, from the stream {@code tick}; the balances and the
   * kworker visits come at a phase of each CPU's own ({@code balance-cpuN}, {@code vmstat-cpuN}).
   * Each from a stream of its own, so that A and B of a compare see them at the same virtual times.
   */
  public static TickSched first(BlksimSettings s, int cpu, int nrCpus) {
    InterferenceSettings i = s.interference();
    if (!i.tick()) {
      return null;
    }
    long seed = s.run().seed();
    long period = VirtualTime.ps(i.tickPeriodNs());
    long phase = phase(s);
    long until = VirtualTime.ps(s.run().runtimeNs());
    if (phase >= until) {
      return null;
    }
    long every = i.loadBalance() ? VirtualTime.ps(i.balanceIntervalNs(nrCpus)) : 0;
    long firstBalance =
        every == 0 ? 0 : phase + RandomStreams.of(seed, "balance-cpu" + cpu).nextLong(every);
    // vmstat_update comes back every vm.stat_interval while -B0's page pins change the node
    // counters; round_jiffies_relative puts it on a tick
    long vmstatEvery =
        i.vmstat() && !s.ioUring().fixedBuffers()
            ? (VirtualTime.ps(i.vmstatIntervalNs()) + period - 1) / period * period
            : 0;
    long firstVmstat =
        vmstatEvery == 0
            ? 0
            : phase + RandomStreams.of(seed, "vmstat-cpu" + cpu).nextLong(vmstatEvery);
    return new TickSched(phase, period, until, firstBalance, every, firstVmstat, vmstatEvery);
  }

  /**
   * The scheduler's tick as it ends the slices of tasks that share a CPU: at the phase of the ticks
   * {@code interference.tick} charges; without them at 0, so that the run stays free of the seed.
   */
  public static SchedTick schedTick(BlksimSettings s) {
    long period = VirtualTime.ps(s.interference().tickPeriodNs());
    return new SchedTick(period, s.interference().tick() ? phase(s) : 0);
  }

  /** Where in its period every CPU's tick comes. */
  private static long phase(BlksimSettings s) {
    long period = VirtualTime.ps(s.interference().tickPeriodNs());
    return RandomStreams.of(s.run().seed(), "tick").nextLong(period);
  }

  /** Whether this tick raises SCHED_SOFTIRQ for a load balance, on a CPU {@code busy} or not. */
  public boolean balances(boolean busy) {
    return busy && balanceEveryPs > 0 && atPs >= balanceAtPs;
  }

  /** Whether this tick fires vmstat_update's timer, on a CPU {@code busy} or not. */
  public boolean firesVmstat(boolean busy) {
    return busy && vmstatEveryPs > 0 && atPs >= vmstatAtPs;
  }

  /** Whether the timer is armed again: its next tick comes before the runtime's end. */
  public boolean rearms() {
    return atPs + periodPs < untilPs;
  }

  /** The next tick, after this one {@code balanced} and fired vmstat's timer or not. */
  public TickSched next(boolean balanced, boolean vmstat) {
    long balance = balanced ? balanceAtPs + balanceEveryPs : balanceAtPs;
    long kworker = vmstat ? vmstatAtPs + vmstatEveryPs : vmstatAtPs;
    return new TickSched(
        atPs + periodPs, periodPs, untilPs, balance, balanceEveryPs, kworker, vmstatEveryPs);
  }
}

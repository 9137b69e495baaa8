package blksim.actors.topology;

import blksim.actors.cpu.Cpu;
import blksim.config.BlksimSettings;
import blksim.config.InterferenceSettings;
import blksim.queues.kernel.sched.CfsSlice;
import blksim.queues.kernel.sched.SchedTick;
import blksim.queues.time.VirtualTime;

/**
 * The first scheduler tick of a CPU that runs a submitter (interference.tick), with when its first
 * load balance and its first vmstat kworker visit come. The kernel puts every CPU's tick on the
 * same jiffy boundary (tick_setup_sched_timer without skew_tick; a CPU leaving NO_HZ idle forwards
 * its timer from its last tick), so the ticks have one phase for the machine, from the stream tick;
 * the balances and the kworker visits come at a phase of each CPU's own (balance-cpuN,
 * vmstat-cpuN). Each from a stream of its own, so that A and B of a compare see them at the same
 * virtual times.
 */
final class FirstTick {
  private FirstTick() {}

  /** The first tick of {@code cpu}, or null when it does not tick within the run. */
  static Cpu.Tick of(BlksimSettings s, int cpu, int nrCpus) {
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
    return new Cpu.Tick(phase, period, until, firstBalance, every, firstVmstat, vmstatEvery);
  }

  /**
   * The CFS slice of a task sharing a CPU with one other, ended by the scheduler's ticks, at their
   * phase; without interference.tick it is 0, so that the run stays free of the seed.
   */
  static CfsSlice slice(BlksimSettings s, int nrCpus) {
    return new CfsSlice(nrCpus, schedTick(s));
  }

  /**
   * The scheduler's tick, which ends the slices of tasks that share a CPU, at the phase of the
   * ticks {@code interference.tick} charges; without them at 0, so that the run stays free of the
   * seed.
   */
  static SchedTick schedTick(BlksimSettings s) {
    long period = VirtualTime.ps(s.interference().tickPeriodNs());
    return new SchedTick(period, s.interference().tick() ? phase(s) : 0);
  }

  /** Where in its period every CPU's tick comes. */
  private static long phase(BlksimSettings s) {
    long period = VirtualTime.ps(s.interference().tickPeriodNs());
    return RandomStreams.of(s.run().seed(), "tick").nextLong(period);
  }
}

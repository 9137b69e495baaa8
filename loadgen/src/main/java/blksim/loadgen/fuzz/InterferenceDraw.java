package blksim.loadgen.fuzz;

import blksim.loadgen.fuzz.Case.Opt;
import java.util.List;
import java.util.random.RandomGenerator;

/** The generator's draws of the interference sources (blksim.interference): tick, vmstat, calls. */
final class InterferenceDraw {
  private InterferenceDraw() {}

  /** Adds the interference options of one case, drawn from {@code r}, to {@code opts}. */
  static void add(RandomGenerator r, List<Opt> opts) {
    if (r.nextInt(100) < 15) {
      opts.add(new Opt("set:interference.tick.enabled", String.valueOf(r.nextBoolean())));
      if (r.nextBoolean()) {
        // short runs: mostly the fastest CONFIG_HZ, so that a tick fires within those of 200 us on
        int[] hz = {100, 250, 300, 1000, 1000, 1000};
        opts.add(new Opt("set:interference.tick.hz", String.valueOf(hz[r.nextInt(hz.length)])));
      }
      if (r.nextInt(100) < 30) {
        opts.add(new Opt("set:interference.tick.load-balance", String.valueOf(r.nextBoolean())));
      }
      if (r.nextInt(100) < 30) {
        // short runs: a short vm.stat_interval, so that the kworker comes within them (-B0)
        opts.add(new Opt("set:interference.vmstat.enabled", String.valueOf(r.nextBoolean())));
        String[] intervals = {"1us", "100us", "1ms", "1s"};
        opts.add(
            new Opt("set:interference.vmstat.interval", intervals[r.nextInt(intervals.length)]));
      }
    }
    if (r.nextInt(100) < 15) {
      opts.add(new Opt("set:interference.variation.enabled", String.valueOf(r.nextBoolean())));
      if (r.nextBoolean()) {
        String[] cvs = {"0", "0.05", "0.15", "0.5", "2"};
        opts.add(new Opt("set:interference.variation.cv", cvs[r.nextInt(cvs.length)]));
      }
    }
    if (r.nextInt(100) < 5) {
      opts.add(new Opt("set:interference.enabled", "false"));
    }
  }
}

package blksim.config;

import java.util.List;

/**
 * The machine's CPUs and where t/io_uring's threads run.
 *
 * @param count CPUs of the machine, numbered 0 to count - 1 (all present, no SMT siblings); the
 *     setting's 0 has become the fitted count
 * @param submitterCpus the CPUs the submitter threads may run on, like {@code taskset -c}: thread i
 *     runs on the (i mod size)-th; empty means every CPU, in order
 */
public record CpuSettings(int count, List<Integer> submitterCpus) {
  public CpuSettings {
    submitterCpus = List.copyOf(submitterCpus);
  }

  /** The CPU of submitter thread {@code i}. */
  public int cpuOf(int submitter) {
    return submitterCpus.isEmpty()
        ? submitter % count
        : submitterCpus.get(submitter % submitterCpus.size());
  }

  static CpuSettings from(SettingsReader r) {
    int asked = r.intIn("blksim.cpu.count", 0, 4096);
    List<Integer> list = r.intsIn("blksim.cpu.submitter-cpus", 0, 4095);
    if (asked == 0) {
      int threads = r.intIn("blksim.io-uring.threads", 1, 4096);
      boolean dmsetup = !r.strings("blksim.dm.suspend").isEmpty();
      return new CpuSettings(fitted(list, threads) + (dmsetup ? 1 : 0), list);
    }
    int count = asked;
    for (int cpu : list) {
      if (cpu >= count) {
        throw new ConfigError(
            r.where("blksim.cpu.submitter-cpus")
                + "blksim.cpu.submitter-cpus has CPU "
                + cpu
                + ": accepted 0 to "
                + (count - 1)
                + " (blksim.cpu.count = "
                + count
                + ")");
      }
    }
    return new CpuSettings(count, list);
  }

  /**
   * The machine {@code count = 0} gives, as a box with idle CPUs is to t/io_uring: the CPUs its
   * threads run on and one more for each thread's io-wq worker (and, in {@link #from}, one for a
   * dmsetup process when a DM suspend is planned). On a real box t/io_uring -n4 finds four idle
   * CPUs for its threads, and their workers wake on idle CPUs too; a fixed count would make them
   * share.
   */
  static int fitted(List<Integer> submitterCpus, int threads) {
    int highest = threads - 1;
    if (!submitterCpus.isEmpty()) {
      highest = 0;
      for (int i = 0; i < Math.min(threads, submitterCpus.size()); i++) {
        highest = Math.max(highest, submitterCpus.get(i));
      }
    }
    return highest + 1 + threads;
  }
}

package blksim.config;

import java.util.List;

/**
 * The machine's CPUs and where t/io_uring's threads run.
 *
 * @param count CPUs of the machine, numbered 0 to count - 1 (all present, no SMT siblings)
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
    int count = r.intIn("blksim.cpu.count", 1, 4096);
    List<Integer> list = r.intsIn("blksim.cpu.submitter-cpus", 0, 4095);
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
}

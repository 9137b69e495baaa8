package blksim.loadgen.cli;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import java.util.ArrayList;
import java.util.List;

/**
 * A CPU list as {@code taskset -c} and the kernel's cpulist format write it: {@code 0-3,8,10-11}.
 */
final class CpuList {
  private CpuList() {}

  static List<Integer> parse(String list) {
    List<Integer> cpus = new ArrayList<>();
    for (String part : list.split(",", -1)) {
      String p = part.trim();
      try {
        int dash = p.indexOf('-');
        int lo = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
        int hi = dash < 0 ? lo : Integer.parseInt(p.substring(dash + 1));
        if (lo < 0 || hi < lo || hi - lo > 4096) {
          throw new NumberFormatException();
        }
        for (int c = lo; c <= hi; c++) {
          if (!cpus.contains(c)) {
            cpus.add(c);
          }
        }
      } catch (NumberFormatException e) {
        throw new ConfigError(
            "--taskset "
                + OneLine.quoted(OneLine.clipped(list))
                + ": "
                + OneLine.quoted(OneLine.clipped(p))
                + " is not a CPU or a range: accepted e.g. 0-3,8");
      }
    }
    return cpus;
  }
}

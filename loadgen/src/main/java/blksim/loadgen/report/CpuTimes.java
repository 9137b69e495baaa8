package blksim.loadgen.report;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Each CPU's time of a summary.json, split by what it did (the {@code *_ns} keys of each of its
 * {@code cpus}): submit, poll, irq, lock wait and idle first, as the summary prints them, then any
 * other in name order; each as a share of the CPU's time, in %.
 */
final class CpuTimes {
  private static final List<String> FIRST = List.of("submit", "poll", "irq", "lock_wait", "idle");

  /**
   * @param categories what the CPUs did, as the legend names it ("lock wait")
   * @param cpus each CPU's name, "cpuN"
   * @param pct {@code pct.get(c).get(i)}: the share of CPU {@code i}'s time in category {@code c}
   */
  record Shares(List<String> categories, List<String> cpus, List<List<Double>> pct) {
    /**
     * The stacked bars: {@code stacked(c)} is the share of categories 0 to {@code c} together, so
     * that the bar of the last category is 100 % long and each category shows as its own segment.
     */
    List<Double> stacked(int c) {
      List<Double> sum = new ArrayList<>();
      for (int i = 0; i < cpus.size(); i++) {
        double s = 0;
        for (int k = 0; k <= c; k++) {
          s += pct.get(k).get(i);
        }
        sum.add(s);
      }
      return sum;
    }
  }

  private CpuTimes() {}

  static Shares of(Config summary) {
    List<? extends Config> cpus = summary.getConfigList("cpus");
    TreeSet<String> other = new TreeSet<>();
    for (Config c : cpus) {
      for (String k : c.root().keySet()) {
        if (k.endsWith("_ns") && !FIRST.contains(k.substring(0, k.length() - 3))) {
          other.add(k.substring(0, k.length() - 3));
        }
      }
    }
    List<String> keys = new ArrayList<>(FIRST);
    keys.addAll(other);
    List<String> names = new ArrayList<>();
    List<List<Double>> pct = new ArrayList<>();
    for (String k : keys) {
      pct.add(new ArrayList<>());
    }
    for (Config c : cpus) {
      names.add("cpu" + c.getInt("cpu"));
      double total = 0;
      for (String k : keys) {
        total += ns(c, k);
      }
      for (int i = 0; i < keys.size(); i++) {
        pct.get(i).add(total > 0 ? 100.0 * ns(c, keys.get(i)) / total : 0);
      }
    }
    List<String> labels = keys.stream().map(k -> k.replace('_', ' ')).toList();
    return new Shares(labels, names, pct);
  }

  private static double ns(Config cpu, String key) {
    return cpu.hasPath(key + "_ns") ? cpu.getDouble(key + "_ns") : 0;
  }
}

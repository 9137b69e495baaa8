package blksim.loadgen.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The bars of a profile chart: the functions whose ns/IO (or its change) is largest in size,
 * largest first, those that round to 0.00 ns left out, and the rest summed as one bar, "others".
 */
final class ProfileBars {
  /** How many functions get a bar of their own. */
  static final int TOP = 15;

  /** The label of the bar that sums the rest. */
  static final String OTHERS = "others";

  record Bar(String name, double ns) {}

  private ProfileBars() {}

  /** The bars of {@code nsByFunction} (ns per I/O, or B minus A, by function). */
  static List<Bar> of(Map<String, Double> nsByFunction) {
    List<Bar> all = new ArrayList<>();
    for (Map.Entry<String, Double> e : nsByFunction.entrySet()) {
      if (Math.abs(e.getValue()) >= 0.005) {
        all.add(new Bar(e.getKey(), e.getValue()));
      }
    }
    all.sort(Comparator.comparingDouble(ProfileBars::size).reversed().thenComparing(Bar::name));
    if (all.size() <= TOP + 1) {
      return all;
    }
    List<Bar> bars = new ArrayList<>(all.subList(0, TOP));
    double rest = 0;
    for (Bar b : all.subList(TOP, all.size())) {
      rest += b.ns();
    }
    bars.add(new Bar(OTHERS + " (" + (all.size() - TOP) + " functions)", rest));
    return bars;
  }

  private static double size(Bar b) {
    return Math.abs(b.ns());
  }
}

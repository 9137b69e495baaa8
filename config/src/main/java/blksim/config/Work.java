package blksim.config;

import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValueType;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The work one call of a function gains (positive counts) or loses (negative) by a patch, in {@link
 * WorkUnit}s: {@code { l1-loads = -2, calls = -1 }}.
 *
 * @param counts each unit's count, in {@link WorkUnit} order; none is 0
 */
public record Work(Map<WorkUnit, Double> counts) {
  public Work {
    EnumMap<WorkUnit, Double> sorted = new EnumMap<>(WorkUnit.class);
    sorted.putAll(counts);
    counts = java.util.Collections.unmodifiableMap(sorted);
  }

  /** The count of {@code unit}, 0 when not given. */
  public double count(WorkUnit unit) {
    return counts.getOrDefault(unit, 0.0);
  }

  /**
   * The units of the object at {@code path}; keys in {@code others} are left to the caller.
   *
   * @throws ConfigError for a key that is not a unit, a count out of range, or no unit at all
   */
  static Work from(SettingsReader r, String path, Set<String> others) {
    if (r.config().getValue(path).valueType() != ConfigValueType.OBJECT) {
      throw new ConfigError(
          r.where(path)
              + path
              + " is not an object: expected { "
              + (others.isEmpty()
                  ? ""
                  : String.join(" = ..., ", new TreeSet<>(others)) + " = ..., ")
              + "UNIT = count, ... } with units "
              + WorkUnit.keys());
    }
    EnumMap<WorkUnit, Double> counts = new EnumMap<>(WorkUnit.class);
    for (String key : new TreeSet<>(r.config().getObject(path).keySet())) {
      if (others.contains(key)) {
        continue;
      }
      WorkUnit u = WorkUnit.of(key);
      if (u == null) {
        String near = KeySuggestion.nearestOf(key, unitKeys());
        throw new ConfigError(
            r.where(path + "." + ConfigUtil.quoteString(key))
                + path
                + "."
                + OneLine.of(key)
                + " is not a unit of work"
                + (near == null ? "" : " (did you mean " + near + "?)")
                + ": accepted "
                + WorkUnit.keys()
                + (others.isEmpty() ? "" : ", and " + String.join(", ", new TreeSet<>(others))));
      }
      double max = u == WorkUnit.NS ? MicroArch.MAX_NS : WorkUnit.MAX_COUNT;
      double v = r.doubleIn(path + "." + key, -max, max, u == WorkUnit.NS ? "ns" : u.key());
      if (v != 0) {
        counts.put(u, v);
      }
    }
    if (counts.isEmpty()) {
      throw new ConfigError(
          r.where(path)
              + path
              + " changes no work: give at least one unit that is not 0 ("
              + WorkUnit.keys()
              + ")");
    }
    return new Work(counts);
  }

  private static Set<String> unitKeys() {
    Set<String> keys = new TreeSet<>();
    for (WorkUnit u : WorkUnit.values()) {
      keys.add(u.key());
    }
    return keys;
  }

  /** As HOCON writes it: {@code calls = -1, l2-loads = -1}. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<WorkUnit, Double> e : counts.entrySet()) {
      double v = e.getValue();
      b.append(b.length() == 0 ? "" : ", ")
          .append(e.getKey().key())
          .append(" = ")
          .append(
              v == Math.rint(v) && Math.abs(v) < 1e15
                  ? Long.toString((long) v)
                  : Double.toString(v));
    }
    return b.toString();
  }
}

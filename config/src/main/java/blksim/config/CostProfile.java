package blksim.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A CPU cost profile: step of the I/O path (named after the kernel function that does it) to CPU
 * time. Values are given in nanoseconds, decimals allowed, and kept in picoseconds so that
 * sub-nanosecond costs add up exactly.
 *
 * @param name the profile's key under {@code blksim.profiles}
 * @param costsPs step name to picoseconds, sorted by name
 */
public record CostProfile(String name, Map<String, Long> costsPs) {

  /** The profile whose step names every other profile must use. */
  public static final String REFERENCE_PROFILE = "begunkov-2021";

  public CostProfile {
    costsPs = Map.copyOf(costsPs);
  }

  /**
   * CPU time of one step in picoseconds.
   *
   * @throws IllegalArgumentException if the profile has no such step (a model bug: loading checks
   *     that every profile has every step)
   */
  public long ps(String step) {
    Long v = costsPs.get(step);
    if (v == null) {
      throw new IllegalArgumentException("profile " + name + " has no step " + step);
    }
    return v;
  }

  /**
   * Checks every profile under {@code blksim.profiles} and returns the one {@code
   * blksim.cpu.profile} names.
   */
  static CostProfile from(SettingsReader r, Config reference) {
    Set<String> names = new TreeSet<>(r.config().getObject("blksim.profiles").keySet());
    CostProfile selected = null;
    String wanted = r.string("blksim.cpu.profile");
    for (String name : names) {
      CostProfile p = parse(r, reference, name);
      if (name.equals(wanted)) {
        selected = p;
      }
    }
    if (selected == null) {
      throw new ConfigError(
          "blksim.cpu.profile = "
              + wanted
              + " is not a profile: known "
              + String.join(", ", names));
    }
    return selected;
  }

  private static CostProfile parse(SettingsReader r, Config reference, String name) {
    String path = "blksim.profiles." + quote(name);
    Set<String> steps = reference.getObject("blksim.profiles." + quote(REFERENCE_PROFILE)).keySet();
    ConfigObject profile = r.config().getObject(path);
    Map<String, Long> costs = new TreeMap<>();
    for (String step : profile.keySet()) {
      if (!steps.contains(step)) {
        throw new ConfigError(
            path
                + "."
                + step
                + " is not a step of the I/O path: known "
                + String.join(", ", new TreeSet<>(steps)));
      }
      costs.put(step, Math.round(r.nonNegativeDouble(path + "." + quote(step)) * 1000.0));
    }
    for (String step : steps) {
      if (!costs.containsKey(step)) {
        throw new ConfigError(path + " has no entry " + step + ": every profile prices every step");
      }
    }
    return new CostProfile(name, costs);
  }

  private static String quote(String key) {
    return "\"" + key + "\"";
  }
}

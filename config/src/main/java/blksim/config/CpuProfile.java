package blksim.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A CPU cost profile: a box, its kernel build and the setup it was measured on.
 *
 * <p>Costs come in two kinds. The <em>shape</em> ({@code steps}) prices each kernel function in
 * nanoseconds on the reference box of {@code begunkov-2021}; a profile multiplies all of it by one
 * {@code scale}. What a patch or knob changes is <em>derived</em> from the {@code facts} of the CPU
 * (dependent-load latency, call cost, stores, {@code rep stos}, atomics, {@code ktime_get_ns}, the
 * syscall), so that a profile for another CPU predicts rather than fits.
 *
 * <p>A profile may {@code extends} another and override any of its facts, steps or scale; its
 * {@code setup} is a layer of settings (null_blk parameters, queue attributes) for the box it
 * describes, under whatever the user sets.
 *
 * @param stepsNs function name to nanoseconds on the reference box, before {@code scale}
 * @param setup settings under {@code blksim} that the profile's box used
 */
public record CpuProfile(
    String name,
    String description,
    double scale,
    MicroArch facts,
    Map<String, Double> stepsNs,
    Config setup) {

  /** The profile that defines the set of steps every profile prices. */
  public static final String REFERENCE_PROFILE = "begunkov-2021";

  /**
   * Bounds of a step (1 ms, a thousand times the dearest one) and of the scale: far beyond any box,
   * and such that no cost overflows picoseconds.
   */
  static final double MAX_STEP_NS = 1_000_000;

  static final double MIN_SCALE = 0.001;
  static final double MAX_SCALE = 100;

  public CpuProfile {
    stepsNs = Map.copyOf(stepsNs);
  }

  /**
   * The shape cost of {@code step}, in ns, scaled.
   *
   * @throws IllegalArgumentException if there is no such step (loading checks every profile)
   */
  public double scaledNs(String step) {
    Double v = stepsNs.get(step);
    if (v == null) {
      throw new IllegalArgumentException("profile " + name + " has no step " + step);
    }
    return v * scale;
  }

  /**
   * Checks every profile under {@code blksim.profiles}; returns the one {@code blksim.cpu.profile}
   * names.
   */
  static CpuProfile from(SettingsReader r, Config reference) {
    Set<String> names = new TreeSet<>(r.config().getObject("blksim.profiles").keySet());
    Set<String> steps =
        reference.getObject("blksim.profiles." + quote(REFERENCE_PROFILE) + ".steps").keySet();
    String wanted = r.string("blksim.cpu.profile");
    CpuProfile selected = null;
    for (String name : names) {
      CpuProfile p = parse(r.config(), name, steps);
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

  /** The settings layer ({@code blksim.*} paths) of profile {@code name}, empty if none. */
  static Config setupLayer(Config resolved, String name) {
    if (!resolved.hasPath("blksim.profiles." + quote(name))) {
      return ConfigFactory.empty();
    }
    Config merged = merged(resolved, name, new ArrayList<>());
    return merged.hasPath("setup")
        ? merged.getConfig("setup").atPath("blksim")
        : ConfigFactory.empty();
  }

  private static CpuProfile parse(Config config, String name, Set<String> knownSteps) {
    String path = "blksim.profiles." + name;
    try {
      return parseMerged(config, name, knownSteps);
    } catch (ConfigError e) {
      // the merged profile is read at p: messages name it by its own path
      throw new ConfigError(
          e.getMessage()
              .replaceAll("steps\\.\"([^\"]+)\"", "steps.$1")
              .replaceAll(
                  "(^|[\\s:])p\\.", "$1" + java.util.regex.Matcher.quoteReplacement(path + ".")));
    }
  }

  private static CpuProfile parseMerged(Config config, String name, Set<String> knownSteps) {
    Config merged = merged(config, name, new ArrayList<>()).atPath("p");
    SettingsReader r = new SettingsReader(merged);
    String path = "blksim.profiles." + name;
    for (String key : merged.getObject("p").keySet()) {
      if (!Set.of("extends", "description", "scale", "facts", "steps", "setup").contains(key)) {
        throw new ConfigError(
            path
                + "."
                + key
                + " is not a profile key: accepted extends, description, scale, facts, steps, setup");
      }
    }
    Map<String, Double> steps = new TreeMap<>();
    if (merged.hasPath("p.steps")) {
      for (String step : merged.getObject("p.steps").keySet()) {
        if (!knownSteps.contains(step)) {
          throw new ConfigError(
              path
                  + ".steps."
                  + step
                  + " is not a step of the I/O path: known "
                  + String.join(", ", new TreeSet<>(knownSteps)));
        }
        steps.put(step, r.doubleIn("p.steps." + quote(step), 0, MAX_STEP_NS, "ns"));
      }
    }
    for (String step : knownSteps) {
      if (!steps.containsKey(step)) {
        throw new ConfigError(
            path + ".steps has no entry " + step + ": every profile prices every step");
      }
    }
    if (!merged.hasPath("p.facts") || !merged.hasPath("p.scale")) {
      throw new ConfigError(path + " needs scale and facts, its own or through extends");
    }
    return new CpuProfile(
        name,
        merged.hasPath("p.description") ? merged.getString("p.description") : "",
        r.doubleIn("p.scale", MIN_SCALE, MAX_SCALE, "(the shape's multiplier)"),
        MicroArch.from(r, "p.facts"),
        steps,
        merged.hasPath("p.setup") ? merged.getConfig("p.setup") : ConfigFactory.empty());
  }

  /** The profile with everything it extends merged under it. */
  private static Config merged(Config config, String name, List<String> seen) {
    String path = "blksim.profiles." + quote(name);
    if (!config.hasPath(path) || config.getValue(path).valueType() != ConfigValueType.OBJECT) {
      throw new ConfigError(
          "blksim.profiles."
              + name
              + " is not a profile"
              + (seen.isEmpty() ? "" : " (extended by " + seen.get(seen.size() - 1) + ")"));
    }
    if (seen.contains(name)) {
      throw new ConfigError(
          "blksim.profiles." + name + " extends itself through " + String.join(" -> ", seen));
    }
    seen.add(name);
    Config own = config.getConfig(path);
    if (!own.hasPath("extends")) {
      return own;
    }
    Config parent = merged(config, own.getString("extends"), seen);
    return own.withoutPath("extends").withFallback(parent);
  }

  private static String quote(String key) {
    return "\"" + key + "\"";
  }

  /** Steps of the reference profile, sorted. */
  public static List<String> knownSteps(Config reference) {
    return new ArrayList<>(
        new TreeSet<>(
            reference
                .getObject("blksim.profiles." + quote(REFERENCE_PROFILE) + ".steps")
                .keySet()));
  }
}

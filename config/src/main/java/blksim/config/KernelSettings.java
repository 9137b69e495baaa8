package blksim.config;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The kernel the path is modelled on: a named preset and the patches applied on top of it, plus the
 * request queue's attributes that the seeds' runs depend on.
 *
 * @param preset the preset named by {@code --kernel}, or empty
 * @param patches every patch in effect, the preset's included
 * @param iostats {@code /sys/block/<dev>/queue/iostats}: I/O accounting, {@code ktime_get_ns} at
 *     the start and end of each request (QUEUE_FLAG_IO_STAT, on by default)
 */
public record KernelSettings(String preset, Set<Patch> patches, boolean iostats) {

  /** Kernels by name: the seeds' patches that each has. */
  public static final Map<String, Set<Patch>> PRESETS =
      Map.of(
          "5.15", EnumSet.noneOf(Patch.class),
          "5.16", EnumSet.of(Patch.BDEV_CACHE_IN_FILE, Patch.END_REQUEST_FAST_PATH));

  public KernelSettings {
    patches = patches.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(patches));
  }

  public boolean has(Patch p) {
    return patches.contains(p);
  }

  static KernelSettings from(SettingsReader r) {
    String preset = r.string("blksim.kernel.preset");
    EnumSet<Patch> patches = EnumSet.noneOf(Patch.class);
    if (!preset.isEmpty()) {
      Set<Patch> p = PRESETS.get(preset);
      if (p == null) {
        throw new ConfigError(
            "blksim.kernel.preset = "
                + preset
                + " is not a kernel blksim knows: accepted "
                + String.join(", ", new java.util.TreeSet<>(PRESETS.keySet())));
      }
      patches.addAll(p);
    }
    List<String> listed = r.strings("blksim.kernel.patches");
    for (String name : listed) {
      patches.add(Patch.of(name.trim()));
    }
    return new KernelSettings(preset, patches, r.bool("blksim.queue.iostats"));
  }
}

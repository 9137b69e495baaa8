package blksim.loadgen.perf;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Micro-architecture presets for {@code blksim profile import --cpu NAME}: each is the facts of a
 * profile of reference.conf, named after its CPU (docs/your-box.md 4). No preset holds a fact of
 * its own: a new CPU gets a profile first, then a preset here.
 */
public final class CpuPresets {
  private CpuPresets() {}

  /** preset -> the profile whose facts it gives. */
  public static final Map<String, String> PROFILE_OF = new LinkedHashMap<>();

  static {
    // begunkov-2021's CPU is not named: a ~4 GHz x86 core of 2019-2021
    PROFILE_OF.put("x86-4ghz", "begunkov-2021");
    // AMD Threadripper 3970X
    PROFILE_OF.put("zen2", "zen2-3970x");
    // Intel Xeon Gold 6154, with PTI
    PROFILE_OF.put("skylake-sp", "xeon-gold-6154");
  }
}

package blksim.loadgen.cli;

import blksim.config.KernelSettings;
import blksim.config.Patch;
import com.typesafe.config.ConfigFactory;
import java.util.TreeSet;

/**
 * The lists that help texts print (patches, kernels, profiles, schedulers), each made from the code
 * or reference.conf that defines it, so that help never lists fewer or other names than are
 * accepted. picocli's descriptions read them as {@code ${sys:blksim.help.NAME}}, set by {@link
 * #install()} before any help is printed.
 */
final class HelpLists {
  private HelpLists() {}

  static {
    System.setProperty("blksim.help.patches", patches());
    System.setProperty("blksim.help.kernels", kernels());
    System.setProperty("blksim.help.profiles", profiles());
    System.setProperty("blksim.help.schedulers", schedulers());
  }

  /** Makes sure the help lists are set for picocli's descriptions. */
  static void install() {
    // the static initializer does the work, once
  }

  /** Every built-in patch, in its order. */
  static String patches() {
    return Patch.names();
  }

  /** Every named kernel, oldest first. */
  static String kernels() {
    return String.join(", ", new TreeSet<>(KernelSettings.PRESETS.keySet()));
  }

  /** Every CPU cost profile of reference.conf, by name. */
  static String profiles() {
    return String.join(
        ", ",
        new TreeSet<>(ConfigFactory.defaultReference().getObject("blksim.profiles").keySet()));
  }

  /** reference.conf's profile, used without --profile. */
  static String defaultProfile() {
    return ConfigFactory.defaultReference().getString("blksim.cpu.profile");
  }

  /** The I/O schedulers that the model runs. */
  static String schedulers() {
    return String.join(", ", new TreeSet<>(KernelSettings.MODELLED_SCHEDULERS));
  }
}

package blksim.loadgen.cli;

import blksim.config.ConfigError;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where {@code --json} (or {@code --csv}) writes: checked before a run starts, not found unwritable
 * at its end.
 */
final class JsonTarget {
  private JsonTarget() {}

  /**
   * Checks that {@code json} can be written.
   *
   * @throws ConfigError naming the file and why not
   */
  static void check(Path json) {
    check(json, "--json");
  }

  /**
   * Checks that {@code json}, the file of {@code option}, can be written.
   *
   * @throws ConfigError naming the option, the file and why not
   */
  static void check(Path json, String option) {
    if (json == null) {
      return;
    }
    Path parent = json.toAbsolutePath().getParent();
    String why = null;
    if (Files.isDirectory(json)) {
      why = "it is a directory";
    } else if (parent == null || !Files.isDirectory(parent)) {
      why = "no such directory " + parent;
    } else if (!Files.isWritable(parent) && !Files.exists(json)) {
      why = "the directory is not writable";
    } else if (Files.exists(json) && !Files.isWritable(json)) {
      why = "the file is not writable";
    } else if (!Files.exists(json) || Files.isRegularFile(json)) {
      why = noSpace(parent);
    } else if (isDevFull(json)) {
      why = "No space left on device (it is /dev/full, which refuses every write)";
    }
    if (why != null) {
      throw new ConfigError(option + " " + json + ": cannot write: " + why);
    }
  }

  /** {@code makedev(1, 7)}: the kernel's full device, whose write_full answers -ENOSPC. */
  private static final long DEV_FULL = (1 << 8) | 7;

  /** Whether {@code path} is, or links to, the full device (stdout may be redirected to it). */
  static boolean isDevFull(Path path) {
    try {
      return Files.isRegularFile(path)
          ? false
          : ((Number) Files.getAttribute(path, "unix:rdev")).longValue() == DEV_FULL;
    } catch (java.io.IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * "no space left on the device" when the file system of {@code dir} has no byte free, else null.
   * (Another device cannot be asked before it is written to: its failure is found when the figures
   * are written, still exit status 2.)
   */
  private static String noSpace(Path dir) {
    try {
      return Files.getFileStore(dir).getUsableSpace() == 0 ? "no space left on the device" : null;
    } catch (java.io.IOException e) {
      return null;
    }
  }
}

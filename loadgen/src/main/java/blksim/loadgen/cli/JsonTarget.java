package blksim.loadgen.cli;

import blksim.config.ConfigError;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where {@code --json} writes: checked before a run starts, not found unwritable at its end. */
final class JsonTarget {
  private JsonTarget() {}

  /**
   * Checks that {@code json} can be written.
   *
   * @throws ConfigError naming the file and why not
   */
  static void check(Path json) {
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
    }
    if (why != null) {
      throw new ConfigError("--json " + json + ": cannot write: " + why);
    }
  }
}

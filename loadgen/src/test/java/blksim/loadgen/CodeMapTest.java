package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/code-map.md names files by their path from the repository root, and a bare file name after a
 * path is in that path's directory: every file it names exists, so that the map follows the code
 * when files move.
 */
class CodeMapTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern CELL = Pattern.compile("`([A-Za-z0-9_./-]+\\.java)`");

  @Test
  void everyFileTheCodeMapNamesShouldExist() throws IOException {
    List<String> missing = new ArrayList<>();
    int named = 0;
    for (String line : Files.readAllLines(ROOT.resolve("docs/code-map.md"))) {
      Path dir = null;
      Matcher m = CELL.matcher(line);
      while (m.find()) {
        String name = m.group(1);
        Path file;
        if (name.contains("/")) {
          file = ROOT.resolve(name);
          dir = file.getParent();
        } else if (dir != null) {
          file = dir.resolve(name);
        } else {
          continue; // a class named without a path before it on the line: not a file reference
        }
        named++;
        if (!Files.isRegularFile(file)) {
          missing.add(ROOT.relativize(file) + " (" + name + ")");
        }
      }
    }
    assertTrue(named > 50, "the map names its files: " + named);
    assertEquals(List.of(), missing, "files docs/code-map.md names that do not exist");
  }
}

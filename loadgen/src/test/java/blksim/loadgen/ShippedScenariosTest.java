package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every scenario file the repository ships under config/scenarios runs, short, with its books
 * balanced: the files a new user copies first must work as written.
 */
class ShippedScenariosTest {
  private static final Path SCENARIOS = Path.of("..", "config", "scenarios");

  @Test
  void everyShippedScenarioShouldRunWithItsBooksBalanced() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(SCENARIOS)) {
      files = s.filter(p -> p.toString().endsWith(".conf")).sorted().toList();
    }
    assertTrue(files.size() >= 7, "the seeds' and the README's scenarios: " + files);
    for (Path f : files) {
      Blksim r =
          Blksim.run("run", f.toString(), "--engine", "sequential", "--set", "run.runtime=1ms");
      assertEquals(0, r.status(), f + ": " + r.err());
      assertTrue(r.out().contains(" for 0.001 s of virtual time"), f + ": " + r.out());
      assertTrue(r.out().contains("books       balanced"), f + ": " + r.out());
    }
  }
}

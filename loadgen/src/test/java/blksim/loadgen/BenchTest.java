package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code blksim bench} takes the run options a run takes, and checks every run's books. */
class BenchTest {
  @TempDir Path dir;

  @Test
  void benchShouldHonourEngineAndJson() throws IOException {
    Path json = dir.resolve("bench.json");
    Blksim r =
        Blksim.run(
            "bench",
            "--runs",
            "2",
            "--engine",
            "sequential",
            "--set",
            "run.runtime=5ms",
            "--json",
            json.toString());
    assertEquals(0, r.status(), r.err());
    assertFalse(r.out().contains("akka"), "only the engine asked for: " + r.out());
    String text = Files.readString(json);
    assertEquals(2, text.split("\"engine\": \"sequential\"", -1).length - 1, text);
    assertTrue(text.contains("\"books_balanced\": true"), text);
  }

  @Test
  void benchShouldStopOnBooksThatDoNotBalance() {
    Blksim r =
        Blksim.run(
            "bench",
            "--runs",
            "1",
            "--engine",
            "akka",
            "--set",
            "run.runtime=5ms",
            "--set",
            "books.break=leak-bio");
    assertEquals(3, r.status(), r.out());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().contains("akka warm-up: the books do not balance"), r.err());
  }
}

package blksim.loadgen.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The CI tier of the generated scenarios: two thousand cases, each through every oracle (books,
 * both engines, a rerun, the accounting, a metamorphic relation). Any failure is printed shrunk to
 * a command line. {@code -Dblksim.fuzz.seed=S} and {@code -Dblksim.fuzz.count=N} change the draw;
 * the long tier is {@code blksim fuzz --count 10000} (README).
 */
class GeneratedScenariosTest {
  private static final long SEED = Long.getLong("blksim.fuzz.seed", 1);
  private static final long COUNT = Long.getLong("blksim.fuzz.count", 2000);

  @Test
  void shouldPassEveryOracleOnTwoThousandGeneratedScenarios() {
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    Fuzzer fuzzer =
        new Fuzzer(
            new Generator(SEED),
            new Oracles(),
            Runtime.getRuntime().availableProcessors(),
            Duration.ofMinutes(5),
            150,
            3,
            new PrintStream(progress, true, StandardCharsets.UTF_8));
    Fuzzer.Result r = fuzzer.run(SEED, 0, COUNT);
    ByteArrayOutputStream summary = new ByteArrayOutputStream();
    FuzzReport.print(r, "CI tier", new PrintStream(summary, true, StandardCharsets.UTF_8));
    String text = summary.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertEquals(0, r.failures().size(), text);
    assertEquals(COUNT, r.ran() + r.refused(), "every case ran or was refused");
    // The net is only as good as what gets through it: most cases must run, not be refused.
    assertTrue(r.ran() * 100 >= COUNT * 35, "at least 35 % of the cases run: " + r.ran());
    for (String relation : Relations.NAMES) {
      assertTrue(
          r.relations().getOrDefault(relation, 0L) >= 5,
          relation + " was checked on at least 5 cases: " + r.relations());
    }
  }
}

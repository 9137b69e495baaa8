package blksim.loadgen.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Faults planted on purpose are found within a bounded number of cases and shrunk to a short
 * command that still fails: the net has no hole where these two would pass.
 */
class PlantedFaultTest {
  private static final int CASES = 40;

  private static Fuzzer.Result fuzz(String... plants) {
    return new Fuzzer(
            new Generator(3, List.of(plants)),
            new Oracles(),
            2,
            Duration.ofMinutes(5),
            150,
            1,
            new PrintStream(OutputStream.nullOutputStream()))
        .run(3, 0, CASES);
  }

  @Test
  void shouldFindALeakedBioAndShrinkIt() {
    Fuzzer.Result r = fuzz("books.break=leak-bio");
    assertFalse(r.failures().isEmpty(), "a leaked bio is found in " + CASES + " cases");
    Fuzzer.Failure f = r.failures().get(0);
    assertEquals("books", f.verdict().oracle(), f.verdict().detail());
    assertShrunkAndStillFailing(f, "books");
    assertTrue(
        f.shrunk().commandLine().contains("--set books.break=leak-bio"),
        "the plant stays in the command: " + f.shrunk().commandLine());
  }

  @Test
  void shouldFindEnginesThatDivergeAndShrinkIt() {
    // The plant swaps messages due at one instant; calls whose costs vary seldom tie, so it comes
    // with interference.variation off, where the path's round costs make ties common.
    Fuzzer.Result r =
        fuzz("engine.diverge-on-purpose=true", "interference.variation.enabled=false");
    assertFalse(r.failures().isEmpty(), "a divergence is found in " + CASES + " cases");
    Fuzzer.Failure f = r.failures().get(0);
    assertEquals("engines differ", f.verdict().oracle(), f.verdict().detail());
    assertShrunkAndStillFailing(f, "engines differ");
  }

  private static void assertShrunkAndStillFailing(Fuzzer.Failure f, String oracle) {
    assertTrue(f.shrinkRuns() > 0, "the shrinker ran");
    assertTrue(
        f.shrunk().options().size() <= f.generated().options().size(),
        f.shrunk() + " is no bigger than " + f.generated());
    assertTrue(
        f.shrunk().commandLine().length() < f.generated().commandLine().length()
            || f.generated().options().size() <= 3,
        "shrunk: " + f.shrunk() + " from " + f.generated());
    Verdict again = new Oracles().check(f.index(), f.shrunk());
    assertTrue(
        again instanceof Verdict.Failed g && g.oracle().equals(oracle),
        "the shrunk command still fails: " + again);
    // One step smaller no longer fails the same way: the result is one-minimal.
    for (Case smaller : Shrinker.candidates(f.shrunk())) {
      if (f.shrinkRuns() < 150) {
        Verdict v = new Oracles().check(f.index(), smaller);
        assertFalse(
            v instanceof Verdict.Failed g && g.oracle().equals(oracle),
            "a smaller case still fails, so the shrink stopped early: " + smaller);
      }
    }
  }
}

package blksim.loadgen.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.ConfigError;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The differential mode's comparison, with "the other build" played by this one: identical builds
 * give no difference, and a cost changed on purpose is found. (Against a real commit's jar the mode
 * is run by hand, {@code blksim fuzz --against REV}; the README shows it.)
 */
class DifferentialTest {
  private static final List<String> SEQ = List.of("--engine", "sequential");

  private static Fuzzer.Result fuzz(Build theirs) {
    return new Fuzzer(
            new Generator(5),
            new Differential(new ThisBuild(SEQ), theirs),
            2,
            Duration.ofMinutes(5),
            60,
            1,
            new PrintStream(OutputStream.nullOutputStream()))
        .run(5, 0, 60);
  }

  @Test
  void shouldFindNoDifferenceBetweenTheSameBuild() {
    Fuzzer.Result r = fuzz(new ThisBuild(SEQ));
    assertEquals(List.of(), r.failures());
    assertTrue(r.ran() > 10, "cases ran: " + r.ran());
  }

  @Test
  void shouldFindACostChangedOnPurpose() {
    ThisBuild changed =
        new ThisBuild(
            List.of(
                "--engine",
                "sequential",
                "--set",
                "profiles.begunkov-2021.steps.bio_put=5.5",
                "--set",
                "profiles.xeon-gold-6154.steps.bio_put=5.5",
                "--set",
                "profiles.zen2-3970x.steps.bio_put=5.5"));
    Fuzzer.Result r = fuzz(changed);
    assertFalse(r.failures().isEmpty(), "bio_put 5 -> 5.5 ns shows in some case");
    Fuzzer.Failure f = r.failures().get(0);
    assertTrue(f.verdict().oracle().startsWith("differs from"), f.verdict().oracle());
    assertTrue(f.shrinkRuns() > 0);
  }

  @Test
  void shouldRefuseAJarThatIsNotThere() {
    ConfigError e =
        assertThrows(ConfigError.class, () -> new JarBuild(Path.of("no-such.jar"), SEQ));
    assertTrue(e.getMessage().contains("no-such.jar: no such file"), e.getMessage());
  }
}

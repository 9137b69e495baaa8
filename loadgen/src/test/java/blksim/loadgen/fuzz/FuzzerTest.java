package blksim.loadgen.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FuzzerTest {
  private static Fuzzer fuzzer(Fuzzer.Check check) {
    return new Fuzzer(
        new Generator(9),
        check,
        2,
        Duration.ofSeconds(30),
        50,
        5,
        new PrintStream(OutputStream.nullOutputStream()));
  }

  @Test
  void shouldTurnWhatACheckThrowsIntoAFailureAndKeepShrinkingSafe() {
    Case first = new Generator(9).generate(0);
    // Case 0 fails; every smaller candidate throws, as a broken oracle might.
    Fuzzer.Result r =
        fuzzer(
                (i, c) -> {
                  if (i != 0) {
                    return new Verdict.Ran(null);
                  }
                  if (c.equals(first)) {
                    return new Verdict.Failed("planted", "case 0");
                  }
                  throw new IllegalStateException("oracle bug");
                })
            .run(9, 0, 10);
    assertEquals(9, r.ran());
    assertEquals(1, r.failures().size());
    Fuzzer.Failure f = r.failures().get(0);
    assertEquals("planted", f.verdict().oracle());
    assertEquals(first, f.shrunk(), "no candidate that threw was taken for a failure");
  }

  @Test
  void shouldCountEveryCaseOfItsRange() {
    Fuzzer.Check everyThird =
        (i, c) -> i % 3 == 0 ? new Verdict.Refused("every third") : new Verdict.Ran(null);
    Fuzzer.Result r = fuzzer(everyThird).run(9, 5, 100);
    assertEquals(67, r.ran(), "cases 5 to 104, of which 33 are multiples of 3");
    assertEquals(33L, r.refusals().get("every third"));
  }
}

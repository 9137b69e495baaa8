package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The default scenario (seed 000's {@code t/io_uring -d32 -s32 -c32 -b512 -p1 /dev/nullb0}) with a
 * fixed seed must print, byte for byte, the checked-in report, whichever engine drives it and
 * however it is given. A change that moves a figure must update {@code golden/default.out} and say
 * why in its commit.
 */
class GoldenRunTest {

  private static String golden() throws IOException {
    return golden("/golden/default.out");
  }

  private static String golden(String name) throws IOException {
    try (InputStream in = GoldenRunTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * With every interference source off, the report is the one of before there were any ({@code
   * golden/no-interference.out}, the golden report of the commit that added the tick, written again
   * when row 19's tail went into the rows' functions, which moved every report, and when row 12
   * gave hctx_lock's RCU section its names).
   */
  @Test
  void withEveryInterferenceSourceOffTheOldFiguresShouldComeBackExactly() throws IOException {
    Blksim off =
        Blksim.run(
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "-r1",
            "--engine",
            "sequential",
            "--set",
            "interference.enabled=false",
            "/dev/nullb0");
    assertEquals(golden("/golden/no-interference.out"), off.deterministic());
  }

  @Test
  void theDefaultScenarioShouldPrintTheGoldenReportTwice() throws IOException {
    Blksim first = Blksim.run();
    assertEquals(0, first.status(), first.err());
    assertEquals(golden(), first.deterministic());
    Blksim second = Blksim.run();
    assertEquals(
        first.deterministic(), second.deterministic(), "same configuration and seed, same bytes");
  }

  @Test
  void theSequentialEngineAndTheScenarioFileShouldPrintTheSameReport() throws IOException {
    Blksim seq =
        Blksim.run(
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "-r1",
            "--engine",
            "sequential",
            "/dev/nullb0");
    assertEquals(golden(), seq.deterministic());
    Path file = Path.of("..", "config", "scenarios", "default.conf");
    Blksim run = Blksim.run("run", file.toString(), "--engine", "sequential");
    assertEquals(golden(), run.deterministic());
  }

  @Test
  void twoSecondRunsShouldBeIdenticalToo() {
    String[] args = {
      "io_uring",
      "-d32",
      "-s32",
      "-c32",
      "-b512",
      "-p1",
      "-r",
      "2",
      "--engine",
      "sequential",
      "/dev/nullb0"
    };
    Blksim a = Blksim.run(args);
    Blksim b = Blksim.run(args);
    assertEquals(0, a.status(), a.err());
    assertEquals(a.deterministic(), b.deterministic());
  }
}

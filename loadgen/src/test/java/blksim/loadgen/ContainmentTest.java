package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run that fails, or is interrupted, ends as the README says: one line, or t/io_uring's totals.
 */
class ContainmentTest {
  @TempDir Path dir;

  @Test
  void aComponentThatThrowsMidRunShouldExit3InOneLineWithThePartialResults() throws IOException {
    for (String engine : List.of("akka", "sequential")) {
      Path json = dir.resolve(engine + ".json");
      long start = System.nanoTime();
      Blksim r =
          Blksim.run(
              "io_uring",
              "-d32",
              "-s32",
              "-c32",
              "-b512",
              "-p1",
              "-r1",
              "--engine",
              engine,
              "--set",
              "books.break=throw",
              "--json",
              json.toString(),
              "/dev/nullb0");
      long wallMs = (System.nanoTime() - start) / 1_000_000;
      assertEquals(3, r.status(), r.err());
      assertEquals(1, r.errLines().size(), "one line: " + r.err());
      assertTrue(r.err().startsWith("blksim: the run failed: nullb0-hctx1 failed at "), r.err());
      assertTrue(r.err().contains("broken on purpose"), r.err());
      assertTrue(wallMs < 5_000, "ended in " + wallMs + " ms of wall time");
      assertFalse(r.out().contains("blksim: t/io_uring"), "no summary of a failed run");
      String partial = Files.readString(json);
      assertTrue(partial.contains("\"ended\": \"failed: nullb0-hctx1 failed at"), partial);
      assertTrue(partial.contains("\"balanced\": false"), "the books at that point");
      assertTrue(partial.contains("\"ios_submitted\": "), partial);
    }
  }

  /**
   * SIGINT two seconds into a ten-second run: t/io_uring's "Exiting on signal" and its maximum,
   * then blksim's summary with the books, the JSON, exit 0 (t/io_uring's own after a SIGINT).
   */
  @Test
  void sigintShouldEndTheRunWithItsSummaryBooksAndJson() throws Exception {
    Path json = dir.resolve("int.json");
    Process p =
        new ProcessBuilder(
                blksim(
                    "io_uring",
                    "-d32",
                    "-s32",
                    "-c32",
                    "-b512",
                    "-p1",
                    "-r10",
                    "--engine",
                    "sequential",
                    "--json",
                    json.toString(),
                    "/dev/nullb0"))
            .redirectError(dir.resolve("err").toFile())
            .start();
    List<String> out =
        linesSignalledAtFirstIops(
            p,
            () -> {
              Thread.sleep(2_000);
              sigint(p);
            });
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the run ended");
    String all = String.join("\n", out);
    String err = Files.readString(dir.resolve("err"));
    assertEquals(0, p.exitValue(), err + all);
    assertTrue(out.contains("Exiting on signal"), all);
    assertTrue(all.contains("  ended       early, after "), all);
    assertTrue(all.contains(" of virtual time: signal"), all);
    assertTrue(all.contains("  books       balanced"), all);
    assertTrue(Files.readString(json).contains("\"ended\": \"signal\""));
    assertEquals("", err);
  }

  /**
   * SIGINT to four hundred threads 128 deep on 64 tags: their drain would spin in io-wq on -EAGAIN
   * for a minute of wall time; it is cut after half a second, and the summary, JSON and books
   * account for the I/Os still in flight.
   */
  @Test
  void sigintShouldCutALongDrainAndAccountForWhatWasInFlight() throws Exception {
    Path json = dir.resolve("cut.json");
    Process p =
        new ProcessBuilder(
                blksim(
                    "io_uring",
                    "--set",
                    "run.runtime=1ms",
                    "-n",
                    "400",
                    "--json",
                    json.toString(),
                    "/dev/nullb0"))
            .redirectError(dir.resolve("err3").toFile())
            .start();
    List<String> out =
        linesSignalledAtFirstIops(
            p,
            () -> {
              sigint(p);
              // without the cut this run drains for a minute: give up well before
              p.onExit().completeOnTimeout(null, 30, TimeUnit.SECONDS).thenRun(p::destroyForcibly);
            });
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the run ended");
    String all = String.join("\n", out);
    String err = Files.readString(dir.resolve("err3"));
    assertEquals(0, p.exitValue(), err + all);
    assertTrue(out.contains("Exiting on signal"), all);
    assertTrue(all.contains("a signal, then its drain cut after 0.500 s of wall time with "), all);
    assertTrue(all.contains(" in flight when cut ("), all);
    assertTrue(all.contains("  books       balanced as far as a cut run goes: "), all);
    String j = Files.readString(json);
    assertTrue(j.contains("\"ended\": \"signal, drain cut\""), j);
    assertTrue(j.contains("\"balanced\": true, \"violations\": [], \"cut\": true"), j);
  }

  /**
   * A run started as a script's background job inherits SIGINT ignored, and a JVM leaves such a
   * signal alone; the launcher gives it back its default action first, as t/io_uring installs its
   * handler whatever it inherited. Started as the launcher starts java, under a SIGINT ignored, the
   * run still ends on SIGINT.
   */
  @Test
  void sigintInheritedIgnoredShouldStillEndTheRun() throws Exception {
    String reset = launcherReset();
    org.junit.jupiter.api.Assumptions.assumeTrue(
        resets(reset), "this env cannot reset a signal: " + reset);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String script =
        "trap '' INT; exec "
            + reset
            + " '"
            + java
            + "' -cp '"
            + System.getProperty("java.class.path")
            + "' "
            + Main.class.getName()
            + " io_uring -d32 -r10 --engine sequential /dev/nullb0";
    Process p =
        new ProcessBuilder("sh", "-c", script).redirectError(dir.resolve("err2").toFile()).start();
    List<String> out =
        linesSignalledAtFirstIops(
            p,
            () -> {
              sigint(p);
              // a run that ignores it would go on for its ten virtual seconds: end it
              p.onExit().completeOnTimeout(null, 30, TimeUnit.SECONDS).thenRun(p::destroyForcibly);
            });
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the run ended");
    String all = String.join("\n", out);
    assertTrue(out.contains("Exiting on signal"), all);
    assertEquals(0, p.exitValue(), Files.readString(dir.resolve("err2")) + all);
  }

  /** The command line that runs blksim's main with {@code args} in a JVM of its own. */
  private static List<String> blksim(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    // as the launcher does: a SIGINT this test's JVM inherited ignored (a build started as a
    // shell's background job) would be ignored by the run too, and the signal tests would fail
    String reset = launcherReset();
    if (resets(reset)) {
      cmd.addAll(List.of(reset.split(" ")));
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** The launcher's command that gives SIGINT and SIGTERM their default action back, or "". */
  private static String launcherReset() throws Exception {
    Path launcher = Path.of(System.getProperty("user.dir")).getParent().resolve("blksim");
    return Files.readAllLines(launcher).stream()
        .filter(l -> l.startsWith("reset_signals=\""))
        .map(l -> l.substring("reset_signals=\"".length(), l.length() - 1))
        .findFirst()
        .orElse("");
  }

  /** Whether {@code reset} runs here (the launcher's {@code env} may not know the option). */
  private static boolean resets(String reset) throws Exception {
    return !reset.isEmpty()
        && new ProcessBuilder("sh", "-c", reset + " true").start().waitFor() == 0;
  }

  /** What the test does to the run once it prints its first status line. */
  private interface AtFirstIops {
    void act() throws Exception;
  }

  /** {@code p}'s stdout, line by line, with {@code action} done at its first IOPS= line. */
  private static List<String> linesSignalledAtFirstIops(Process p, AtFirstIops action)
      throws Exception {
    List<String> out = new ArrayList<>();
    boolean acted = false;
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        out.add(line);
        if (line.startsWith("IOPS=") && !acted) {
          acted = true;
          action.act();
        }
      }
    }
    return out;
  }

  private static void sigint(Process p) throws Exception {
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
  }
}

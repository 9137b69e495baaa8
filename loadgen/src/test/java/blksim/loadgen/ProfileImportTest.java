package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code blksim profile import} on the verbatim profiles of docs/costs.md section 2, and its round
 * trip: the imported profile's seed command runs at the IOPS the report was taken at.
 */
class ProfileImportTest {
  @TempDir Path dir;

  private Path resource(String name) throws IOException {
    Path p = dir.resolve(name);
    try (InputStream in = ProfileImportTest.class.getResourceAsStream("/perf/" + name)) {
      Files.write(p, in.readAllBytes());
    }
    return p;
  }

  private static long iops(Blksim run) {
    Matcher m = Pattern.compile("(?m)^  IOPS +(\\d+) ").matcher(run.out());
    assertTrue(m.find(), run.out());
    return Long.parseLong(m.group(1));
  }

  /**
   * begunkov-2021's shape is section 6's breakdown, not one verbatim profile; the closest is Pavel
   * Begunkov's of section 2.7 at 4.19-4.30 MIOPS on the same box (its "Before:" lines).
   */
  @Test
  void theImportedProfileRunsTheSeedCommandAtTheMeasuredIops() throws IOException {
    Path out = dir.resolve("pavel.conf");
    Blksim imp =
        Blksim.run(
            "profile",
            "import",
            "--perf",
            resource("2.7-before.txt").toString(),
            "--iops",
            "4.25M",
            "--name",
            "pavel-4m",
            "--out",
            out.toString());
    assertEquals(0, imp.status(), imp.err());
    assertTrue(imp.out().contains("blk_mq_submit_bio"), imp.out());
    String file = Files.readString(out);
    assertTrue(file.contains("blksim.profiles.pavel-4m {"), file);
    assertTrue(file.contains("scale = 1.0"), file);
    // 5.56 % of 235.29 ns, as measured
    assertTrue(file.contains("blk_mq_submit_bio = 13.0824"), file);
    Blksim run =
        Blksim.run(
            "io_uring",
            "--profile-file",
            out.toString(),
            "--profile",
            "pavel-4m",
            "--engine",
            "sequential",
            "--set",
            "run.runtime=200ms",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "/dev/nullb0");
    assertEquals(0, run.status(), run.err());
    assertTrue(run.out().contains("profile pavel-4m"), run.out());
    long got = iops(run);
    assertTrue(Math.abs(got - 4_250_000) <= 0.02 * 4_250_000, "IOPS " + got);
  }

  @Test
  void everyOtherVerbatimProfileImportsAndListsWhatItCouldNotMap() throws IOException {
    String[][] cases = {
      {"2.1-bio-alloc.txt", "3.03M", ""},
      {"2.4-audit.txt", "2.89M", "__audit_uring_entry"},
      {"2.5-nvme-memset.txt", "6.7M", "nvme_setup_cmd"},
      {"2.5-plug-merge.txt", "5.6M", "blk_attempt_plug_merge"},
      {"2.6-13m.txt", "13.04M", "nvme_poll"},
      {"2.7-skip-advance.txt", "4.25M", ""},
      {"2.7-submit-bio-checks.txt", "4.25M", ""},
      {"2.7-whole-series.txt", "4.25M", ""},
      {"2.7-rcu.txt", "4.25M", ""},
      {"2.8-timekeeping.txt", "91M", ""}
    };
    for (String[] c : cases) {
      Blksim imp =
          Blksim.run(
              "profile",
              "import",
              "--perf",
              resource(c[0]).toString(),
              "--iops",
              c[1],
              "--name",
              "box",
              "--out",
              dir.resolve("box.conf").toString());
      assertEquals(0, imp.status(), c[0] + ": " + imp.err());
      assertTrue(imp.out().contains("kernel, unmapped: summed into unattributed"), imp.out());
      assertTrue(imp.out().contains(c[2]), c[0] + ": " + imp.out());
      assertTrue(imp.out().contains("seed command on box: "), imp.out());
    }
  }

  @Test
  void theProfileGoesToStdoutAndTheListingToStderrWithoutOut() throws IOException {
    Blksim imp =
        Blksim.run(
            "profile",
            "import",
            "--perf",
            resource("2.6-13m.txt").toString(),
            "--iops",
            "13040000",
            "--name",
            "jens-13m",
            "--cpu",
            "zen2");
    assertEquals(0, imp.status(), imp.err());
    assertTrue(imp.out().startsWith("# blksim profile jens-13m"), imp.out());
    assertTrue(imp.out().contains("clock-ghz = 4.3"), "zen2-3970x's facts: " + imp.out());
    assertTrue(imp.err().contains("submitter_uring_fn"), imp.err());
    assertTrue(imp.err().contains("user space, t/io_uring's own (row 1): 1 symbol(s)"), imp.err());
  }

  @Test
  void profileDiffPrintsTheStepOfEachDelta() throws IOException {
    Blksim d =
        Blksim.run(
            "profile",
            "diff",
            "--perf-diff",
            resource("2.2-tag-alloc.diff").toString(),
            "--iops",
            "3.25M");
    assertEquals(0, d.status(), d.err());
    List<String> lines = d.lines();
    assertTrue(
        lines.stream()
            .anyMatch(l -> l.contains("__do_sys_io_uring_enter") && l.endsWith("io_uring_enter")),
        d.out());
    assertTrue(d.out().contains("+0.71%"), d.out());
  }

  @Test
  void aBadProfileFileIsOneLine() throws IOException {
    Path bad = dir.resolve("bad.conf");
    Files.writeString(bad, "blksim.io-uring.depth = 8\n");
    for (String file : new String[] {bad.toString(), dir.resolve("missing.conf").toString()}) {
      Blksim run = Blksim.run("io_uring", "--profile-file", file, "/dev/nullb0");
      assertEquals(2, run.status());
      assertEquals(1, run.errLines().size(), run.err());
      assertTrue(run.err().startsWith("--profile-file "), run.err());
    }
  }
}

package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** report.html: one file that opens from disk, and {@code blksim report} draws it again. */
class HtmlReportTest {
  @TempDir Path tmp;

  @Test
  void theReportShouldBeSelfContainedAndDrawnAgainFromTheDirectoryAlone() throws IOException {
    Path dir = tmp.resolve("run");
    Blksim r =
        Blksim.run(
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p0",
            "--null-blk",
            "irqmode=2",
            "--set",
            "run.runtime=20ms",
            "--out",
            dir.toString(),
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    Path html = dir.resolve("report.html");
    String first = Files.readString(html);
    assertTrue(first.contains("uPlot"), "uPlot is inlined");
    assertFalse(first.contains("src=\"http"), "nothing fetched from a network");
    assertFalse(first.contains("<link"), "no stylesheet to fetch");
    assertTrue(first.contains("\"percentiles\": {\"x\": [1.00000, 1.25893"), "1/(1-p) from 1 up");
    assertTrue(first.contains("nullb0-hctx0"), "the hardware queue's tags");
    Files.delete(html);
    Blksim again = Blksim.run("report", dir.toString());
    assertEquals(0, again.status(), again.err());
    assertEquals("blksim report: " + html + "\n", again.out());
    assertEquals(first, Files.readString(html), "the same page from the same files");
  }

  @Test
  void compareShouldWriteBothSidesAndAnOverlay() throws IOException {
    Path dir = tmp.resolve("cmp");
    Blksim r =
        Blksim.run(
            "compare",
            "--engine=sequential",
            "--set",
            "run.runtime=20ms",
            "--out",
            dir.toString(),
            "--patch",
            "bdev-cache-in-file",
            "--",
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    for (String f : new String[] {"A/summary.json", "B/latency.hlog", "A/report.html"}) {
      assertTrue(Files.exists(dir.resolve(f)), f);
    }
    assertTrue(Files.readString(dir.resolve("compare.json")).contains("\"delta_pct\""));
    String first = Files.readString(dir.resolve("report.html"));
    assertTrue(first.contains("B minus A"), "the profile's difference");
    assertTrue(first.contains("a: {command: \"t/io_uring -d32"), "A's curve");
    assertTrue(first.contains("b: {command: \"t/io_uring -d32"), "B's curve");
    Files.delete(dir.resolve("report.html"));
    assertEquals(0, Blksim.run("report", dir.toString()).status());
    assertEquals(first, Files.readString(dir.resolve("report.html")));
  }

  @Test
  void aDirectoryThatIsNotARunShouldBeOneLine() {
    Blksim r = Blksim.run("report", tmp.toString());
    assertEquals(2, r.status(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().contains("not a run directory"), r.err());
  }
}

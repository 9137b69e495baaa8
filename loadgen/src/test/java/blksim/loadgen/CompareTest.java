package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code blksim compare}: A and B side by side, each patch alone, JSON. */
class CompareTest {

  @Test
  void eachSideShouldShowItsOwnRuntimeWhenTheyDiffer() {
    Blksim r =
        Blksim.run(
            "compare",
            "--engine",
            "sequential",
            "--a-set",
            "run.runtime=2ms",
            "--",
            "io_uring",
            "--set",
            "run.runtime=1ms",
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    assertTrue(
        r.out().startsWith("blksim compare: virtual time A 0.002 s, B 0.001 s, seed 1\n"), r.out());
    Blksim same =
        Blksim.run(
            "compare",
            "--engine",
            "sequential",
            "--a-set",
            "io-uring.depth=16",
            "--",
            "io_uring",
            "--set",
            "run.runtime=1ms",
            "/dev/nullb0");
    assertEquals(0, same.status(), same.err());
    assertTrue(
        same.out().startsWith("blksim compare: 0.001 s of virtual time, seed 1\n"), same.out());
  }

  @Test
  void shouldShowEachPatchAloneAndTheDeltaOfEveryFigure(@TempDir Path dir) throws IOException {
    Path json = dir.resolve("cmp.json");
    Blksim r =
        Blksim.run(
            "compare",
            "--engine",
            "sequential",
            "--patch",
            "bdev-cache-in-file,end-request-fast-path",
            "--json",
            json.toString(),
            "--",
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "--set",
            "run.runtime=10ms",
            // the functions at their prices, so that the profile's delta is the patches' exactly
            "--set",
            "interference.variation.enabled=false",
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.lines();
    assertTrue(
        lines.get(0).startsWith("blksim compare: 0.010 s of virtual time, seed 1"), lines.get(0));
    assertTrue(r.out().contains("\n  A + bdev-cache-in-file "), r.out());
    assertTrue(r.out().contains("\n  A + end-request-fast-path "), r.out());
    assertTrue(r.out().contains("\n  B (A + bdev-cache-in-file, end-request-fast-path) "), r.out());
    assertTrue(r.out().contains("patches bdev-cache-in-file,end-request-fast-path"), r.out());
    String blkdevReadIter =
        lines.stream()
            .filter(l -> l.trim().startsWith("blkdev_read_iter "))
            .findFirst()
            .orElseThrow();
    assertTrue(
        blkdevReadIter.trim().matches("blkdev_read_iter\\s+9\\.73\\s+8\\.48\\s+-12\\.85%"),
        blkdevReadIter);
    String text = Files.readString(json);
    for (String key :
        List.of(
            "\"baseline\": {",
            "\"patched\": {",
            "\"delta_pct\": {\"iops\": ",
            "\"alone\": [",
            "\"profile\": [",
            "\"function\": \"blkdev_read_iter\"")) {
      assertTrue(text.contains(key), key);
    }
  }

  @Test
  void aSetAndBSetShouldCompareAnyTwoConfigurationsAndSetBoth() {
    Blksim r =
        Blksim.run(
            "compare",
            "--engine",
            "sequential",
            "--a-set",
            "io-uring.depth=16",
            "--b-set",
            "io-uring.depth=8",
            "--set",
            "run.runtime=5ms",
            "--",
            "io_uring",
            "-s8",
            "-c8",
            "-b512",
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().startsWith("blksim compare: 0.005 s of virtual time"), r.out());
    assertTrue(r.out().contains("  A  t/io_uring -d16 -s8 -c8"), r.out());
    assertTrue(r.out().contains("  B  t/io_uring -d8 -s8 -c8"), r.out());
  }
}

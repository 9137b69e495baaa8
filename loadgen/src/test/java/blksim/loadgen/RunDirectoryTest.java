package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --out DIR}: the run's files, each read back by the tool it is written for. */
class RunDirectoryTest {
  @TempDir Path tmp;

  private static final String[] SEED = {
    "io_uring", "-d32", "-s32", "-c32", "-b512", "-p1", "--set", "run.runtime=20ms"
  };

  private Blksim run(Path dir, String... more) {
    String[] args = new String[SEED.length + more.length + 3];
    System.arraycopy(SEED, 0, args, 0, SEED.length);
    System.arraycopy(more, 0, args, SEED.length, more.length);
    args[args.length - 3] = "--out";
    args[args.length - 2] = dir.toString();
    args[args.length - 1] = "/dev/nullb0";
    return Blksim.run(args);
  }

  private static long jsonLong(String json, String key) {
    Matcher m = Pattern.compile("\"" + Pattern.quote(key) + "\": (\\d+)").matcher(json);
    assertTrue(m.find(), key + " in " + json);
    return Long.parseLong(m.group(1));
  }

  /** The untagged (all submitters) or tagged intervals of a log, added up. */
  private static Histogram sum(Path hlog, String tag) throws IOException {
    Histogram all = new Histogram(3);
    HistogramLogReader reader = new HistogramLogReader(hlog.toFile());
    int intervals = 0;
    for (EncodableHistogram h = reader.nextIntervalHistogram();
        h != null;
        h = reader.nextIntervalHistogram()) {
      if (java.util.Objects.equals(tag, h.getTag())) {
        all.add((Histogram) h);
        intervals++;
      }
    }
    reader.close();
    assertTrue(intervals >= 10, "a tenth of the runtime each, and the drain: " + intervals);
    return all;
  }

  @Test
  void theSummaryShouldNameTheLoopAndCountItsCallsAsSuch() throws IOException {
    Path dir = tmp.resolve("aio");
    Blksim r = run(dir, "-a1");
    assertEquals(0, r.status(), r.err());
    String json = Files.readString(dir.resolve("summary.json"));
    assertTrue(json.contains("\"engine\": \"aio\""), json);
    assertTrue(!json.contains("io_uring_enter_calls"), "aio makes no io_uring_enter");
    assertTrue(jsonLong(json, "calls") > 0, json);
  }

  @Test
  void theIntervalLogShouldAddUpToTheSummary() throws IOException {
    Path dir = tmp.resolve("run");
    Blksim r = run(dir, "--set", "null-blk.irqmode=2", "--set", "io-uring.polled=false");
    assertEquals(0, r.status(), r.err());
    String json = Files.readString(dir.resolve("summary.json"));
    Histogram all = sum(dir.resolve("latency.hlog"), null);
    assertEquals(jsonLong(json, "ios_completed"), all.getTotalCount(), "every I/O reaped, once");
    assertEquals(jsonLong(json, "p50"), all.getValueAtPercentile(50));
    assertEquals(jsonLong(json, "p99"), all.getValueAtPercentile(99));
    assertEquals(jsonLong(json, "p99.9"), all.getValueAtPercentile(99.9));
    assertEquals(jsonLong(json, "max"), all.getMaxValue());
    assertEquals(all, sum(dir.resolve("latency.hlog"), "cpu0"), "one submitter: its own = all");
    String hgrm = Files.readString(dir.resolve("latency.hgrm"));
    assertTrue(
        Pattern.compile("Total count\\s+=\\s+" + all.getTotalCount() + "]").matcher(hgrm).find(),
        hgrm);
    assertTrue(Files.readString(dir.resolve("profile.txt")).contains("blk_mq_submit_bio"));
  }

  @Test
  void eachSubmitterShouldHaveItsOwnTaggedIntervals() throws IOException {
    Path dir = tmp.resolve("two");
    Blksim r = run(dir, "-n2", "--cpus", "3", "--taskset", "0,2");
    assertEquals(0, r.status(), r.err());
    Path hlog = dir.resolve("latency.hlog");
    Histogram cpu0 = sum(hlog, "cpu0");
    Histogram cpu2 = sum(hlog, "cpu2");
    Histogram all = sum(hlog, null);
    assertTrue(cpu0.getTotalCount() > 0 && cpu2.getTotalCount() > 0, "both threads reaped");
    Histogram both = cpu0.copy();
    both.add(cpu2);
    assertEquals(all, both, "the untagged interval is the two threads' together");
    assertEquals(
        jsonLong(Files.readString(dir.resolve("summary.json")), "ios_completed"),
        all.getTotalCount());
  }

  @Test
  void theResolvedConfigurationShouldRunTheSameRunAgain() {
    Path dir = tmp.resolve("again");
    Blksim first = run(dir, "--patch", "bio-init-compound", "--seed", "7");
    assertEquals(0, first.status(), first.err());
    Blksim again = Blksim.run("run", dir.resolve("config.conf").toString());
    assertEquals(0, again.status(), again.err());
    assertEquals(first.deterministic(), again.deterministic());
  }

  @Test
  void aFailedRunShouldLeaveWhatRanInItsDirectory() throws IOException {
    Path dir = tmp.resolve("failed");
    Blksim r = run(dir, "--set", "books.break=throw", "--set", "books.throw-after=1000");
    assertEquals(3, r.status(), r.err());
    assertTrue(r.err().contains("what ran is in " + dir), r.err());
    assertTrue(Files.readString(dir.resolve("summary.json")).contains("\"ended\": \"failed: "));
    assertTrue(Files.exists(dir.resolve("latency.hgrm")));
    assertTrue(Files.exists(dir.resolve("config.conf")));
  }

  @Test
  void aDirectoryThatCannotBeWrittenShouldBeRefusedBeforeTheRun() throws IOException {
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    Blksim r = run(file);
    assertEquals(2, r.status(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().startsWith("--out " + file + ": cannot write there"), r.err());
    assertEquals("", r.out());
  }
}

package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.loadgen.report.CompareReport;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code blksim compare --profile a,b}: one patch on many CPUs, a row a profile. */
class CompareProfilesTest {
  private static final String[] RUN = {
    "--", "io_uring", "-b512", "-d128", "-c32", "-s32", "-p1", "-F1", "-B1", "/dev/nullb0"
  };

  private static Blksim compare(String profile, Path out, String... more) {
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "compare",
            "--engine",
            "sequential",
            "--profile",
            profile,
            "--patch",
            "bio-init-compound",
            "--set",
            "run.runtime=50ms"));
    if (out != null) {
      args.addAll(List.of("--out", out.toString()));
    }
    args.addAll(List.of(more));
    args.addAll(List.of(RUN));
    Blksim r = Blksim.run(args.toArray(String[]::new));
    assertEquals(0, r.status(), r.err());
    return r;
  }

  /** A row of the table, by profile. */
  private record Row(long a, long b, String delta, double saved, String moved) {}

  private static Map<String, Row> rows(Blksim r) {
    Matcher m =
        Pattern.compile(
                "\n  (\\S+)\\s+(\\d+)\\s+(\\d+)\\s+([-+]\\d+\\.\\d\\d%)\\s+(-?\\d+\\.\\d\\d)  ([^\n]*)")
            .matcher(r.out());
    Map<String, Row> rows = new LinkedHashMap<>();
    while (m.find()) {
      rows.put(
          m.group(1),
          new Row(
              Long.parseLong(m.group(2)),
              Long.parseLong(m.group(3)),
              m.group(4),
              Double.parseDouble(m.group(5)),
              m.group(6)));
    }
    return rows;
  }

  /** A variant row of a one-profile compare: IOPS, ns/IO, delta. */
  private static String[] variant(Blksim r, String label) {
    Matcher m =
        Pattern.compile("\n  " + Pattern.quote(label) + "\\s+(\\d+)\\s+(\\d+\\.\\d)\\s+(\\S*)\n")
            .matcher(r.out());
    assertTrue(m.find(), r.out());
    return new String[] {m.group(1), m.group(2), m.group(3)};
  }

  /** A summary.json without the lines that time the wall clock. */
  private static String figures(Path summary) throws IOException {
    return Files.readAllLines(summary).stream()
        .filter(l -> !l.contains("\"wall_sec\"") && !l.contains("\"sim_ios_per_wall_sec\""))
        .collect(Collectors.joining("\n"));
  }

  @Test
  void eachRowShouldHoldTheFiguresOfACompareOfThatProfileAlone(@TempDir Path dir)
      throws IOException {
    Path json = dir.resolve("profiles.json");
    Blksim all =
        compare("begunkov-2021,xeon-gold-6154", dir.resolve("all"), "--json", json.toString());
    Map<String, Row> rows = rows(all);
    assertEquals(List.of("begunkov-2021", "xeon-gold-6154"), List.copyOf(rows.keySet()), all.out());
    assertTrue(
        all.out().startsWith("blksim compare: 0.050 s of virtual time, seed 1, on 2 profiles\n"),
        all.out());
    // each profile's A and B run with its own setup: null_blk's 64 tags on Pavel Begunkov's box,
    // 128 on Bart Van Assche's
    assertTrue(
        Pattern.compile("profile begunkov-2021, no seed patches, [^\n]*hw_queue_depth=64 ")
            .matcher(all.out())
            .find(),
        all.out());
    assertTrue(
        Pattern.compile(
                "profile xeon-gold-6154, patches bio-init-compound, [^\n]*hw_queue_depth=128 ")
            .matcher(all.out())
            .find(),
        all.out());
    assertNotEquals(rows.get("begunkov-2021").a(), rows.get("xeon-gold-6154").a());
    assertTrue(!all.out().contains("A + bio-init-compound "), "no per-patch rows");
    Config profilesJson = ConfigFactory.parseFile(json.toFile());
    List<? extends Config> jsonRows = profilesJson.getConfigList("profiles");
    assertEquals(2, jsonRows.size());
    int i = 0;
    for (Map.Entry<String, Row> e : rows.entrySet()) {
      String profile = e.getKey();
      Row row = e.getValue();
      Path alone = dir.resolve(profile);
      Blksim one = compare(profile, alone);
      String[] a = variant(one, "A (baseline)");
      String[] b = variant(one, "B (A + bio-init-compound)");
      assertEquals(Long.parseLong(a[0]), row.a(), profile + " A IOPS");
      assertEquals(Long.parseLong(b[0]), row.b(), profile + " B IOPS");
      assertEquals(b[2], row.delta(), profile + " delta");
      // the one-profile compare prints ns/IO to 0.1: its difference is within 0.1 of the saving
      double saved = Double.parseDouble(a[1]) - Double.parseDouble(b[1]);
      assertEquals(saved, row.saved(), 0.101, profile + " ns/IO saved");
      // the lines that moved most, from the one-profile compare's own profile delta
      Config cmp = ConfigFactory.parseFile(alone.resolve("compare.json").toFile());
      List<Map.Entry<String, Double>> deltas = new ArrayList<>();
      cmp.getObject("profile_delta_ns")
          .unwrapped()
          .forEach((f, v) -> deltas.add(Map.entry(f, ((Number) v).doubleValue())));
      deltas.removeIf(d -> Math.abs(d.getValue()) < 0.005);
      deltas.sort(
          Comparator.comparingDouble((Map.Entry<String, Double> d) -> -Math.abs(d.getValue()))
              .thenComparing(Map.Entry::getKey));
      List<String> moved = List.of(row.moved().split("; "));
      assertEquals(Math.min(3, deltas.size()), moved.size(), row.moved());
      assertTrue(moved.get(0).startsWith("bio_init +"), row.moved());
      for (int j = 0; j < moved.size(); j++) {
        String line = moved.get(j);
        int sp = line.lastIndexOf(' ');
        assertEquals(deltas.get(j).getKey(), line.substring(0, sp), row.moved());
        assertEquals(
            deltas.get(j).getValue(), Double.parseDouble(line.substring(sp + 1)), 0.006, line);
      }
      // A and B are the very runs a compare of the profile alone makes
      for (String side : List.of("A", "B")) {
        assertEquals(
            figures(alone.resolve(side).resolve("summary.json")),
            figures(dir.resolve("all").resolve(profile).resolve(side).resolve("summary.json")),
            profile + " " + side);
      }
      Config jr = jsonRows.get(i++);
      assertEquals(profile, jr.getString("profile"));
      assertEquals(row.a(), jr.getLong("a_iops"));
      assertEquals(row.b(), jr.getLong("b_iops"));
      assertEquals(row.saved(), jr.getDouble("ns_per_io_saved"), 0.0051);
      assertEquals(
          moved.get(0).substring(0, moved.get(0).lastIndexOf(' ')),
          jr.getConfigList("moved").get(0).getString("function"));
      assertEquals(row.a(), jr.getLong("compare.baseline.iops"));
    }
    assertEquals(
        Files.readString(json), Files.readString(dir.resolve("all").resolve("compare.json")));
    // blksim report draws each profile's report.html again
    Path html = dir.resolve("all").resolve("xeon-gold-6154").resolve("report.html");
    String first = Files.readString(html);
    assertTrue(first.contains("profile xeon-gold-6154, patches bio-init-compound"), "B's model");
    Files.delete(html);
    Blksim report = Blksim.run("report", dir.resolve("all").toString());
    assertEquals(0, report.status(), report.err());
    assertEquals(2, report.lines().stream().filter(l -> l.endsWith("report.html")).count());
    assertEquals(first, Files.readString(html));
  }

  @Test
  void aProfileThatIsNotOneShouldBeRefusedByNameWithTheKnownOnes() {
    Blksim r =
        Blksim.run(
            "compare", "--profile", "begunkov-2021,xeon-gold-6145", "--patch", "bio-init-compound");
    assertEquals(2, r.status());
    assertEquals(
        List.of(
            "blksim compare: --profile begunkov-2021,xeon-gold-6145: xeon-gold-6145 is not a"
                + " profile: known begunkov-2021, snitzer-2022, xeon-gold-6154, zen2-3970x"),
        r.errLines());
    assertEquals("", r.out(), "nothing ran");
  }

  @Test
  void aProfileListedTwiceOrAnEmptyNameShouldBeRefused() {
    Blksim twice =
        Blksim.run(
            "compare",
            "--profile",
            "zen2-3970x,begunkov-2021,zen2-3970x",
            "--patch",
            "bio-init-compound");
    assertEquals(2, twice.status());
    assertEquals(
        List.of(
            "blksim compare: --profile zen2-3970x,begunkov-2021,zen2-3970x lists zen2-3970x"
                + " twice; give each profile once"),
        twice.errLines());
    Blksim empty =
        Blksim.run("compare", "--profile", "zen2-3970x,,begunkov-2021", "--patch", "rq-layout");
    assertEquals(2, empty.status());
    assertEquals(1, empty.errLines().size(), empty.err());
    assertTrue(empty.err().contains("an empty name in the list"), empty.err());
  }

  @Test
  void aProfileThatTheRunDefinesShouldCountAsKnown() {
    Blksim r =
        compare(
            "zen2-3970x,slow-zen2",
            null,
            "--set",
            "profiles.slow-zen2={extends=zen2-3970x,scale=1.5}");
    Map<String, Row> rows = rows(r);
    assertEquals(List.of("zen2-3970x", "slow-zen2"), List.copyOf(rows.keySet()), r.out());
    assertTrue(rows.get("slow-zen2").a() < rows.get("zen2-3970x").a(), r.out());
    Blksim again =
        compare(
            "zen2-3970x,slow-zen2",
            null,
            "--set",
            "profiles.slow-zen2={extends=zen2-3970x,scale=1.5}");
    assertEquals(r.out(), again.out(), "the same configuration and seed, the same bytes");
  }

  @Test
  void theLinesThatMovedMostShouldTakeAnyNameEvenOneOnlyBHas() {
    Map<String, double[]> profile = new LinkedHashMap<>();
    profile.put("bio_init", new double[] {5.5, 9.5});
    profile.put("blk_mq_submit_bio", new double[] {19.42, 19.4201});
    profile.put("b_tie", new double[] {1.0, 2.0});
    profile.put("a_symbol_a_patch_adds", new double[] {0, 4.5});
    profile.put("a_tie", new double[] {3.0, 2.0});
    profile.put("__blkdev_direct_IO", new double[] {7.25, 0});
    profile.put("io_read", new double[] {6.14, 6.10});
    assertEquals(
        List.of(
            new CompareReport.Moved("__blkdev_direct_IO", -7.25),
            new CompareReport.Moved("a_symbol_a_patch_adds", 4.5),
            new CompareReport.Moved("bio_init", 4.0)),
        CompareReport.moved(profile, 3));
    assertEquals(
        List.of(
            "__blkdev_direct_IO", "a_symbol_a_patch_adds", "bio_init", "a_tie", "b_tie", "io_read"),
        CompareReport.moved(profile, 10).stream().map(CompareReport.Moved::function).toList(),
        "equal changes by name; a change that rounds to 0.00 is left out");
  }
}

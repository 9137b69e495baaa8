package blksim.loadgen.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.ConfigError;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SweepFileTest {
  /** t/io_uring's flags as the sweep sees them: -d and -n replace, --set and --patch add. */
  private static final Axis.Options IO_URING =
      new Axis.Options() {
        private final Set<String> all =
            Set.of(
                "-d",
                "-s",
                "-c",
                "-n",
                "-p",
                "--cpus",
                "--set",
                "--patch",
                "--null-blk",
                "--profile",
                "--kernel",
                "--seed",
                "--out");

        @Override
        public String command() {
          return "io_uring";
        }

        @Override
        public boolean has(String option) {
          return all.contains(option);
        }

        @Override
        public boolean repeatable(String option) {
          return Set.of("--set", "--patch", "--null-blk").contains(option);
        }

        @Override
        public String listed() {
          return String.join(" ", new java.util.TreeSet<>(all));
        }
      };

  private static SweepFile sweep(String text) {
    return SweepFile.parse(ConfigFactory.parseString(text), "s.conf");
  }

  private static List<List<String>> args(String text) {
    return sweep(text).points(IO_URING).stream().map(Point::args).toList();
  }

  @Test
  void aGridVariesItsFirstAxisSlowestInTheOrderOfTheLines() {
    SweepFile s =
        sweep(
            "base = \"io_uring -d32 /dev/nullb0\"\n"
                + "axes {\n"
                + "  io-uring.zz = [1, 2]\n" // a path axis: refused later, by the scenario
                + "  \"-d\" = [8, 16, 32]\n"
                + "}\n");
    assertEquals(List.of("io-uring.zz", "-d"), s.axes().stream().map(Axis::name).toList());
    List<Point> points = s.points(IO_URING);
    assertEquals(6, points.size());
    assertEquals(List.of("1", "8"), points.get(0).values());
    assertEquals(List.of("1", "16"), points.get(1).values());
    assertEquals(List.of("2", "8"), points.get(3).values());
    assertEquals(
        List.of("io_uring", "/dev/nullb0", "--set", "io-uring.zz=2", "-d", "32"),
        points.get(5).args());
  }

  @Test
  void aFlagAxisReplacesTheBaseFlagAttachedOrNot() {
    assertEquals(
        List.of("io_uring", "-s32", "/dev/nullb0", "-d", "8"),
        args("base = \"io_uring -d32 -s32 /dev/nullb0\"\naxes { \"-d\" = [8] }").get(0));
    assertEquals(
        List.of("io_uring", "-s32", "/dev/nullb0", "-d", "8"),
        args("base = \"io_uring -d 32 -s32 /dev/nullb0\"\naxes { \"-d\" = [8] }").get(0));
    // before the end of the options, so that the value is not taken for a file
    assertEquals(
        List.of("io_uring", "-d", "8", "--", "/dev/nullb0"),
        args("base = \"io_uring -- /dev/nullb0\"\naxes { \"-d\" = [8] }").get(0));
  }

  @Test
  void aBaseIsShellWordsOrAListOfWords() {
    assertEquals(
        List.of("io_uring", "--null-blk", "a=1 b=2", "--dm-table", "0 8 linear x 0", "/dev/nullb0"),
        args("base = \"io_uring --null-blk 'a=1 b=2' --dm-table \\\"0 8 linear x 0\\\" /dev/nullb0\"\naxes { seed = [1] }")
            .get(0)
            .subList(0, 6));
    assertEquals(
        List.of("io_uring", "--null-blk", "a=1 b=2", "/dev/nullb0", "--seed", "1"),
        args("base = [io_uring, --null-blk, \"a=1 b=2\", /dev/nullb0]\naxes { seed = [1] }")
            .get(0));
    ConfigError e =
        assertThrows(ConfigError.class, () -> sweep("base = \"io_uring 'x\"\naxes { seed = [1] }"));
    assertTrue(e.getMessage().contains("never closed"), e.getMessage());
  }

  @Test
  void cpusAreThreadsAndOneSubmitAndOnePollQueueEach() {
    assertEquals(
        List.of(
            "io_uring",
            "-p1",
            "/dev/nullb0",
            "--cpus",
            "4",
            "-n",
            "4",
            "--null-blk",
            "submit_queues=4 poll_queues=4"),
        args("base = \"io_uring -n1 -p1 /dev/nullb0\"\naxes { cpus = [4] }").get(0));
  }

  @Test
  void patchesAddToTheBaseAndTheEmptySetAddsNone() {
    List<List<String>> a =
        args("base = \"io_uring /dev/nullb0\"\naxes { patches = [\"\", \"a,b\", [c, d]] }");
    assertEquals(List.of("io_uring", "/dev/nullb0"), a.get(0));
    assertEquals(List.of("io_uring", "/dev/nullb0", "--patch", "a,b"), a.get(1));
    assertEquals(List.of("io_uring", "/dev/nullb0", "--patch", "c,d"), a.get(2));
  }

  @Test
  void rangesCountByStepOrMultiplyByTimes() {
    assertEquals(
        List.of("1", "2", "3"),
        sweep("base = \"io_uring x\"\naxes { cpus = \"1..3\" }").axes().get(0).values());
    assertEquals(
        List.of("8", "32", "128"),
        sweep("base = \"io_uring x\"\naxes { \"-d\" = { from = 8, to = 200, times = 4 } }")
            .axes()
            .get(0)
            .values());
    assertEquals(
        List.of("1", "4", "7"),
        sweep("base = \"io_uring x\"\naxes { \"-d\" = { from = 1, to = 8, step = 3 } }")
            .axes()
            .get(0)
            .values());
  }

  @Test
  void aSettingsPathAxisIsASetOfItsValueAsHocon() {
    List<List<String>> a =
        args(
            "base = \"io_uring x\"\n"
                + "set { run.runtime = 50ms }\n"
                + "axes { null-blk.irqmode = [0, 2], kernel.preset = [\"5.10\"] }");
    assertEquals(
        List.of(
            "io_uring",
            "x",
            "--set",
            "run.runtime=50ms",
            "--set",
            "kernel.preset=\"5.10\"", // on one line: by name
            "--set",
            "null-blk.irqmode=0"),
        a.get(0));
  }

  @Test
  void zipTakesTheIthValuesTogether() {
    List<Point> p =
        sweep(
                "base = \"io_uring x\"\ncombine = zip\naxes {\n \"-d\" = [8, 16]\n \"-s\" = [4, 8]\n}")
            .points(IO_URING);
    assertEquals(2, p.size());
    assertEquals(List.of("16", "8"), p.get(1).values());
  }

  @Test
  void badSweepFilesAreOneLineNamingWhatIsWrongAndWhatIsAccepted() {
    String[][] cases = {
      {"axes { cpus = [1] }", "base must be a command line"},
      {"base = \"fio x\"\naxes { cpus = [1] }", "must start with io_uring or run"},
      {"base = \"io_uring x\"", "axes must be an object"},
      {"base = \"io_uring x\"\naxes {}", "axes is empty"},
      {"base = \"io_uring x\"\naxes { cpus = [] }", "has no values"},
      {"base = \"io_uring x\"\naxes { cpus = [1, 1] }", "lists '1' twice"},
      {"base = \"io_uring x\"\naxes { cpus = \"8..1\" }", "ends (1) before it starts (8)"},
      {"base = \"io_uring x\"\naxes { cpus = \"1..a\" }", "whole numbers"},
      {"base = \"io_uring x\"\naxes { cpus = 4 }", "accepted a list"},
      {"base = \"io_uring x\"\naxes { cpus = [{a = 1}] }", "a number or a string"},
      {"base = \"io_uring x\"\naxes { cpus = {from = 1, to = 4, by = 2} }", "not 'by'"},
      {"base = \"io_uring x\"\naxes { cpus = {from = 1, to = 4, times = 1} }", "times must be 2"},
      {"base = \"io_uring x\"\naxes { cpus = \"1..100000000\" }", "more than 10000 values"},
      {"base = \"io_uring x\"\ncombine = all\naxes { cpus = [1] }", "accepted grid"},
      {"base = \"io_uring x\"\nset = 1\naxes { cpus = [1] }", "set must be an object"},
      {"base = \"io_uring x\"\npatch-files = x\naxes { cpus = [1] }", "list of file names"},
      {"base = \"io_uring x\"\nbase2 = 1\naxes { cpus = [1] }", "'base2' is not a key"},
    };
    for (String[] c : cases) {
      ConfigError e = assertThrows(ConfigError.class, () -> sweep(c[0]).points(IO_URING), c[0]);
      assertTrue(e.getMessage().startsWith("s.conf: "), e.getMessage());
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
      assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }
  }

  @Test
  void axesThatTheBaseDoesNotTakeAreRefusedBeforeAnyPoint() {
    String[][] cases = {
      {
        "base = \"io_uring x\"\naxes { \"-q\" = [1] }", "not an option of the base command io_uring"
      },
      {"base = \"io_uring x\"\naxes { depth = [1] }", "give a flag of the base command"},
      {"base = \"io_uring x\"\naxes { \"--out\" = [a] }", "writes each point's files itself"},
      {
        "base = \"io_uring x\"\naxes {\n cpus = [1]\n \"--cpus\" = [2]\n}",
        "both set the same thing"
      },
      {
        "base = \"io_uring x\"\ncombine = zip\naxes {\n cpus = [1]\n \"-d\" = [2, 3]\n}",
        "one length"
      },
      {
        "base = \"io_uring x\"\naxes {\n cpus = \"1..100\"\n \"-d\" = \"1..101\"\n}",
        "more than 10000 points"
      },
    };
    for (String[] c : cases) {
      ConfigError e = assertThrows(ConfigError.class, () -> sweep(c[0]).points(IO_URING), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
    }
  }

  @Test
  void aPointsCommandLineQuotesWhatAShellWouldSplit() {
    Point p = new Point(0, List.of("x"), List.of("io_uring", "--null-blk", "a=1 b=2", "it's"));
    assertEquals("blksim io_uring --null-blk 'a=1 b=2' 'it'\\''s'", p.commandLine());
  }
}

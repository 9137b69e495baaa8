package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A patch of the user's own, described as data (docs/your-patch.md): what it adds shows in the
 * profile with its calls per I/O and in compare's diff; what it changes moves the function it
 * names; the books balance and the run is deterministic.
 */
class OwnPatchTest {
  /** The worked example of docs/your-patch.md, as the repository ships it. */
  private static final Path EXAMPLE = Path.of("..", "docs", "examples", "audit-uring.conf");

  private static final String[] RUN = {
    "--engine", "sequential", "--set", "run.runtime=20ms", "-d32", "-s32", "-c32", "-b512", "-p1"
  };

  private static Blksim ioUring(String... more) {
    String[] args = new String[1 + more.length + RUN.length + 1];
    args[0] = "io_uring";
    System.arraycopy(more, 0, args, 1, more.length);
    System.arraycopy(RUN, 0, args, 1 + more.length, RUN.length);
    args[args.length - 1] = "/dev/nullb0";
    Blksim r = Blksim.run(args);
    assertEquals(0, r.status(), r.err());
    return r;
  }

  /** ns/IO and calls/IO of profile line {@code fn}, or null when the profile has none. */
  private static double[] line(Blksim r, String fn) {
    Matcher m =
        Pattern.compile("\n\\s+[0-9.]+%\\s+([0-9.]+)\\s+([0-9.]+)  " + Pattern.quote(fn) + "\n")
            .matcher(r.out());
    return m.find()
        ? new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))}
        : null;
  }

  @Test
  void theExampleShouldAddItsFunctionsToTheProfileWithTheirCalls() {
    Blksim a = ioUring();
    Blksim b = ioUring("--patch-file", EXAMPLE.toString(), "--patch", "audit-uring-rfc");
    assertEquals(null, line(a, "__audit_uring_entry"));
    double[] entry = line(b, "__audit_uring_entry");
    double[] exit = line(b, "__audit_uring_exit");
    assertTrue(entry != null && exit != null, b.out());
    // one call of each per I/O, io_issue_sqe's; at the reference box's prices (docs/your-patch.md
    // section 2): a call, five L1 loads and a store; a call and three L1 loads
    assertEquals(1.0, entry[1], 1e-3);
    assertEquals(1.0, exit[1], 1e-3);
    assertEquals(1.25 + 5 * 1.25 + 0.25, entry[0], 0.02);
    assertEquals(1.25 + 3 * 1.25, exit[0], 0.02);
    assertEquals(line(a, "io_issue_sqe")[0] + 5 * 1.25, line(b, "io_issue_sqe")[0], 0.02);
    assertTrue(b.out().contains("patches audit-uring-rfc"), "the model line names it");
    assertTrue(b.out().contains("books       balanced"), b.out());
    Blksim again = ioUring("--patch-file", EXAMPLE.toString(), "--patch", "audit-uring-rfc");
    assertEquals(b.deterministic(), again.deterministic());
  }

  @Test
  void perCallShouldMultiplyTheCallsAndCompareShouldShowTheNewLine(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("mine.conf");
    Files.writeString(
        file,
        "patches.mine {\n"
            + "  changes { bio_init { stores = -16, rep-stos-qwords = 16 } }\n"
            + "  adds { ktime_get_ns { called-from = blk_mq_start_request, per-call = 2, ktime = 1 } }\n"
            + "}\n");
    Blksim b = ioUring("--patch-file", file.toString(), "--patch", "mine");
    double[] ktime = line(b, "ktime_get_ns");
    assertEquals(2.0, ktime[1], 1e-3, "two calls a request, one request an I/O");
    assertEquals(30.0, ktime[0], 0.1, "15 ns each (facts.ktime-get-ns)");
    assertEquals(7.75 + 4 * 0.25, line(b, "bio_init")[0], 0.02, "rep stosq of 16, 4 stores");
    Blksim c =
        Blksim.run(
            "compare",
            "--engine=sequential",
            "--set",
            "run.runtime=20ms",
            "--patch-file",
            file.toString(),
            "--patch",
            "mine",
            "--",
            "io_uring",
            "-d32",
            "-s32",
            "-c32",
            "-b512",
            "-p1",
            "/dev/nullb0");
    assertEquals(0, c.status(), c.err());
    assertTrue(
        Pattern.compile("\n\\s+ktime_get_ns\\s+0\\.00\\s+30\\.\\d\\d\\s+new\n")
            .matcher(c.out())
            .find(),
        c.out());
  }
}

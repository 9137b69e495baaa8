package blksim.loadgen;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** Runs the blksim command in-process and keeps what it printed. */
record Blksim(int status, String out, String err) {

  static Blksim run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      status = Main.run(args, o, e);
    }
    return new Blksim(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  List<String> lines() {
    return Arrays.asList(out.split("\n", -1));
  }

  /** Everything but the last line (wall time), the part that must not change between runs. */
  String deterministic() {
    List<String> lines = lines();
    int last = lines.size() - 1;
    while (last > 0 && lines.get(last).isEmpty()) {
      last--;
    }
    if (!lines.get(last).startsWith("wall ")) {
      throw new AssertionError("the last line is not the wall-time line: " + lines.get(last));
    }
    return String.join("\n", lines.subList(0, last)) + "\n";
  }

  List<String> errLines() {
    return err.isEmpty() ? List.of() : Arrays.asList(err.strip().split("\n"));
  }
}

package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.topology.RunResult;
import blksim.loadgen.cli.Cli;
import blksim.loadgen.report.RunReport;
import blksim.loadgen.report.TIoUringFormat;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code -t1}: each thread prints the percentiles of its own latencies, as t/io_uring does. */
class TrackLatenciesTest {
  @Test
  void eachThreadShouldPrintItsOwnPercentiles() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<RunReport> reports = new ArrayList<>();
    String[] args = {
      "io_uring",
      "-d32",
      "-s32",
      "-c32",
      "-b512",
      "-p1",
      "-t1",
      "-n2",
      "--cpus",
      "3",
      "--set",
      "run.runtime=20ms",
      "--engine",
      "sequential",
      "/dev/nullb0"
    };
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      assertEquals(
          ExitStatus.OK,
          Cli.execute(args, o, new PrintStream(new ByteArrayOutputStream()), reports::add));
    }
    String text = out.toString(StandardCharsets.UTF_8);
    RunReport r = reports.get(0);
    List<String> blocks = new ArrayList<>();
    for (RunResult.Submitter sub : r.result().submitters()) {
      List<String> lines = new ArrayList<>();
      lines.add((1000 + sub.index()) + ": Latency percentiles:");
      lines.addAll(TIoUringFormat.percentiles(RunReport.percentilesNs(sub.latencyNs()), ""));
      String block = String.join("\n", lines) + "\n";
      assertTrue(text.contains(block), "thread " + sub.index() + "'s own block:\n" + block);
      blocks.add(block);
    }
    assertEquals(2, blocks.size());
    long both =
        r.result().submitters().stream().mapToLong(s -> s.latencyNs().getTotalCount()).sum();
    assertEquals(r.result().latencyNs().getTotalCount(), both, "the two add up to the summary");
  }
}

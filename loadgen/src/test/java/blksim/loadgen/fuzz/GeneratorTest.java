package blksim.loadgen.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class GeneratorTest {
  private static final int N = 2000;

  @Test
  void shouldDrawCaseIFromTheSeedAndIAlone() {
    Generator g = new Generator(7);
    assertEquals(g.generate(123), new Generator(7).generate(123));
    assertNotEquals(g.generate(123), g.generate(124));
    assertNotEquals(g.generate(123), new Generator(8).generate(123));
  }

  /** The edges the issue names, each drawn often enough to matter in a thousand cases. */
  @Test
  void shouldReachTheEdges() {
    Generator g = new Generator(1);
    List<Case> cases = new java.util.ArrayList<>();
    for (int i = 0; i < N; i++) {
      cases.add(g.generate(i));
    }
    edge(cases, "one tag", c -> "1".equals(c.get("nb:hw_queue_depth")));
    edge(cases, "depth 1", c -> "1".equals(c.get("-d")));
    edge(cases, "depth above the tags", c -> depth(c) > tags(c));
    edge(cases, "a batch above the depth", c -> c.get("-s") != null && num(c, "-s") > depth(c));
    edge(
        cases,
        "one CPU, many queues",
        c ->
            "1".equals(c.get("--cpus"))
                && c.get("nb:submit_queues") != null
                && num(c, "nb:submit_queues") > 1);
    edge(
        cases,
        "slow device, polled",
        c -> "2".equals(c.get("nb:irqmode")) && !"0".equals(c.get("-p")));
    edge(cases, "many CPUs", c -> c.get("--cpus") != null && num(c, "--cpus") > 16);
    edge(cases, "several devices", c -> c.get("nb:nr_devices") != null);
    edge(cases, "placement", c -> c.get("--taskset") != null);
    edge(
        cases,
        "threads taking turns on a CPU, within their tags",
        c -> sharesCpu(c) && depth(c) * num(c, "-n") <= tags(c));
    edge(cases, "patches", c -> c.get("--patch") != null);
    edge(cases, "kernel", c -> c.get("--kernel") != null);
    edge(cases, "profile", c -> c.get("--profile") != null);
  }

  private static void edge(List<Case> cases, String what, Predicate<Case> p) {
    long n = cases.stream().filter(p).count();
    assertTrue(n >= N / 200, what + ": " + n + " of " + N);
  }

  /** Two threads on one CPU: fewer CPUs than threads, or a taskset that names one twice. */
  private static boolean sharesCpu(Case c) {
    if (c.get("-n") == null || num(c, "-n") < 2) {
      return false;
    }
    String taskset = c.get("--taskset");
    if (taskset != null) {
      List<String> on = List.of(taskset.split(","));
      return on.stream().distinct().count() < Math.min(on.size(), num(c, "-n"));
    }
    return c.get("--cpus") != null && num(c, "--cpus") < num(c, "-n");
  }

  private static long depth(Case c) {
    return c.get("-d") == null ? 128 : num(c, "-d");
  }

  private static long tags(Case c) {
    return c.get("nb:hw_queue_depth") == null ? 64 : num(c, "nb:hw_queue_depth");
  }

  private static long num(Case c, String name) {
    return Long.parseLong(c.get(name));
  }

  /**
   * What a summary prints reads back as the same case, so a shrunk failure can be checked again.
   */
  @Test
  void shouldReadBackEveryCommandLineItPrints() {
    Generator g = new Generator(11);
    for (int i = 0; i < 500; i++) {
      Case c = g.generate(i);
      Case back = CaseLine.parse(c.commandLine());
      assertEquals(c.commandLine(), back.commandLine());
      assertEquals(c.args(), back.args());
    }
  }
}

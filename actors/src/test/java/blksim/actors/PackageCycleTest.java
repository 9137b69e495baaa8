package blksim.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Dependencies among the packages of actors/ run one way (submitter, bio set, block device,
 * driver): jdeps over the compiled classes finds no cycle.
 */
class PackageCycleTest {
  private static final Pattern EDGE =
      Pattern.compile("^\\s+(blksim\\.actors\\.[\\w.]+)\\s+->\\s+(blksim\\.actors\\.[\\w.]+)\\s");

  @Test
  void shouldFindNoCycleAmongThePackagesOfActors() {
    Path classes = Path.of("target", "classes");
    assertTrue(Files.isDirectory(classes), "compiled classes at " + classes.toAbsolutePath());
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int rc =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "-verbose:package",
            "-filter:none",
            classes.toString());
    assertEquals(0, rc, err.toString());
    Map<String, Set<String>> edges = new TreeMap<>();
    for (String line : out.toString().lines().toList()) {
      Matcher m = EDGE.matcher(line);
      if (m.find() && !m.group(1).equals(m.group(2))) {
        edges.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
      }
    }
    assertTrue(edges.containsKey("blksim.actors.cpu"), "jdeps saw the packages: " + edges);
    List<String> cycle = cycle(edges);
    assertEquals(List.of(), cycle, "a cycle among actors' packages; edges: " + edges);
  }

  @Test
  void shouldSeeACycleWhereThereIsOne() {
    Map<String, Set<String>> g =
        Map.of("cpu", Set.of("hctx"), "hctx", Set.of("nullblk"), "nullblk", Set.of("hctx"));
    assertEquals(List.of("hctx", "nullblk", "hctx"), cycle(new TreeMap<>(g)));
    assertEquals(List.of(), cycle(new TreeMap<>(Map.of("cpu", Set.of("hctx")))));
  }

  /** A cycle of the graph as the list of its packages, or an empty list. */
  static List<String> cycle(Map<String, Set<String>> edges) {
    Set<String> done = new TreeSet<>();
    for (String start : edges.keySet()) {
      List<String> path = new ArrayList<>();
      List<String> found = visit(start, edges, path, done);
      if (!found.isEmpty()) {
        return found;
      }
    }
    return List.of();
  }

  private static List<String> visit(
      String node, Map<String, Set<String>> edges, List<String> path, Set<String> done) {
    int at = path.indexOf(node);
    if (at >= 0) {
      List<String> c = new ArrayList<>(path.subList(at, path.size()));
      c.add(node);
      return c;
    }
    if (done.contains(node)) {
      return List.of();
    }
    path.add(node);
    for (String next : edges.getOrDefault(node, Set.of())) {
      List<String> found = visit(next, edges, path, done);
      if (!found.isEmpty()) {
        return found;
      }
    }
    path.remove(path.size() - 1);
    done.add(node);
    return List.of();
  }
}

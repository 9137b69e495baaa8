package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.Limit;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every refusal of what is not modelled yet names its {@link Limit}, and every limit has a check
 * that refuses it: read from the sources of the checks (this package, and config's Elevator and
 * DmTable), from the module's directory, where surefire runs the tests.
 */
class LimitSitesTest {
  private static final Path TOPOLOGY = Path.of("src/main/java/blksim/actors/topology");
  private static final Path CONFIG = Path.of("../config/src/main/java/blksim/config");

  private static final Pattern NAMED = Pattern.compile("\\bLimit\\.([A-Z0-9_]+)\\b");
  private static final Pattern COMMENT = Pattern.compile("//[^\n]*|/\\*.*?\\*/", Pattern.DOTALL);

  /** The checks' sources, comments dropped, one string per file. */
  private static List<String> sources() throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(TOPOLOGY)) {
      s.filter(LimitSitesTest::isJava).forEach(files::add);
    }
    files.add(CONFIG.resolve("Elevator.java"));
    files.add(CONFIG.resolve("DmTable.java"));
    List<String> out = new ArrayList<>();
    for (Path f : files) {
      String text = Files.readString(f, StandardCharsets.UTF_8);
      out.add(COMMENT.matcher(text).replaceAll(""));
    }
    return out;
  }

  private static boolean isJava(Path p) {
    return p.toString().endsWith(".java");
  }

  private static List<String> named(String statement) {
    List<String> names = new ArrayList<>();
    Matcher m = NAMED.matcher(statement);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  @Test
  void everyLimitHasACheck() throws IOException {
    List<String> used = new ArrayList<>();
    for (String source : sources()) {
      used.addAll(named(source));
    }
    for (Limit l : Limit.values()) {
      assertTrue(
          used.contains(l.name()), "no check refuses Limit." + l.name() + " (" + l.id() + ")");
    }
  }

  /** A throw whose line says "not modelled", and each refuseIf, names exactly one limit. */
  @Test
  void everyRefusalNamesOneLimit() throws IOException {
    int refusals = 0;
    for (String source : sources()) {
      for (String statement : source.split(";")) {
        boolean refuses =
            statement.contains(".refuseIf(")
                || statement.contains(".refusal(")
                || (statement.contains("throw ") && statement.contains("not modelled"));
        if (refuses) {
          refusals++;
          assertEquals(
              1, named(statement).size(), "a refusal naming no or several limits:\n" + statement);
        }
      }
    }
    assertTrue(refusals >= Limit.values().length, refusals + " refusals");
  }
}

package blksim.loadgen.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every case the fuzzer once found failing, shrunk, passes every oracle now (fuzz/found.txt). */
class FoundCasesTest {

  static Stream<String> found() throws IOException {
    try (InputStream in = FoundCasesTest.class.getResourceAsStream("/fuzz/found.txt")) {
      List<String> lines =
          new String(in.readAllBytes(), StandardCharsets.UTF_8)
              .lines()
              .filter(l -> !l.isBlank() && !l.startsWith("#"))
              .toList();
      return lines.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("found")
  void shouldPassEveryOracleUnderEveryRelation(String line) {
    Case c = CaseLine.parse(line);
    assertEquals(line, c.commandLine(), "the line reads back as written");
    for (int relation = 0; relation < Relations.NAMES.size(); relation++) {
      assertInstanceOf(
          Verdict.Ran.class, new Oracles().check(relation, c), Relations.NAMES.get(relation));
    }
  }
}

package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/limits.md lists what is not modelled yet as {@code blksim limits} prints it, between its
 * marker lines. {@code -Dblksim.limits.write=true} writes the list there instead of checking it.
 */
class LimitsDocTest {
  private static final Path DOC = Path.of("../docs/limits.md");
  private static final String BEGIN = "<!-- limits:begin -->\n";
  private static final String END = "<!-- limits:end -->\n";

  @Test
  void printsTheListAndNothingElse() {
    Blksim b = Blksim.run("limits");
    assertEquals(0, b.status(), b.err());
    assertEquals("", b.err());
    assertTrue(b.out().startsWith("t/io_uring modes\n  "), b.out());
    Blksim help = Blksim.run("limits", "--help");
    assertEquals(0, help.status(), help.err());
    assertTrue(help.out().startsWith("Usage: blksim limits"), help.out());
  }

  @Test
  void docsListIsWhatBlksimLimitsPrints() throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    int begin = doc.indexOf(BEGIN);
    int end = doc.indexOf(END);
    assertTrue(begin >= 0 && end > begin, DOC + " has no " + BEGIN.strip() + " ... " + END.strip());
    String block = "```text\n" + Blksim.run("limits").out() + "```\n";
    String written = doc.substring(begin + BEGIN.length(), end);
    if (Boolean.getBoolean("blksim.limits.write")) {
      String updated = doc.substring(0, begin + BEGIN.length()) + block + doc.substring(end);
      Files.writeString(DOC, updated, StandardCharsets.UTF_8);
      return;
    }
    assertEquals(
        block,
        written,
        "docs/limits.md's list differs from blksim limits; write it with ./mvnw -o -pl loadgen test"
            + " -Dtest=LimitsDocTest -Dblksim.limits.write=true");
  }
}

package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ./blksim} command in the README's code blocks runs from a fresh clone, in the order
 * the README gives them, each cut short: the same words, with a short runtime and the sequential
 * engine added, files of the repository read from it and files the commands write put in a
 * temporary folder.
 */
class ReadmeExamplesTest {
  private static final Path ROOT = Path.of("..");

  /** The README's {@code ./blksim} commands, continuation lines joined, comments dropped. */
  static List<List<String>> commands(String readme) {
    List<List<String>> out = new ArrayList<>();
    boolean code = false;
    StringBuilder cmd = null;
    for (String line : readme.split("\n")) {
      if (line.startsWith("```")) {
        code = !code;
        continue;
      }
      if (!code) {
        continue;
      }
      String l = line.replaceAll("\\s+#.*$", "").strip();
      if (cmd == null && (l.startsWith("./blksim") || l.startsWith("$ ./blksim"))) {
        cmd = new StringBuilder();
        l = l.replaceFirst("^\\$ ", "");
      }
      if (cmd != null) {
        boolean more = l.endsWith("\\");
        cmd.append(' ').append(more ? l.substring(0, l.length() - 1) : l);
        if (!more) {
          out.add(words(cmd.toString().strip()));
          cmd = null;
        }
      }
    }
    return out;
  }

  private static List<String> words(String cmd) {
    List<String> w = new ArrayList<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("'([^']*)'|(\\S+)").matcher(cmd);
    while (m.find()) {
      w.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    return w.subList(1, w.size());
  }

  /** {@code args} cut short, with the repository's files and the written ones where they are. */
  static String[] shortened(List<String> args, Path dir) {
    List<String> out = new ArrayList<>();
    if (args.isEmpty()) {
      // ./blksim alone: the default scenario
      args = List.of("io_uring", "-d32", "-s32", "-c32", "-b512", "-p1", "/dev/nullb0");
    }
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.startsWith("config/") || a.startsWith("docs/")) {
        a = ROOT.resolve(a).toString();
      } else if (i > 0 && args.get(i - 1).equals("--out")) {
        a = dir.resolve(a).toString();
      } else if (a.endsWith(".conf") && !Files.exists(ROOT.resolve(a))) {
        a = dir.resolve(a).toString();
      }
      out.add(a);
      boolean run = a.equals("io_uring") || a.equals("run") || a.equals("compare");
      if (i == 0 && run || i == 1 && a.equals("run") && !args.get(0).equals("compare")) {
        out.addAll(List.of("--engine", "sequential", "--set", "run.runtime=2ms"));
      }
    }
    return out.toArray(String[]::new);
  }

  @Test
  void everyReadmeCommandShouldRunShort(@TempDir Path dir) throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    List<List<String>> all = commands(readme);
    assertTrue(all.size() >= 6, "the README's commands: " + all);
    for (List<String> c : all) {
      String[] args = shortened(c, dir);
      Blksim r = Blksim.run(args);
      assertEquals(0, r.status(), String.join(" ", args) + ": " + r.err());
    }
  }
}

package blksim.loadgen.fuzz;

import blksim.config.ConfigError;
import blksim.loadgen.fuzz.Case.Opt;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads back a case from the command line {@link Case#commandLine()} printed (a shrunk failure, or
 * one a person wrote the same way), so that it can be checked again by every oracle: {@code blksim
 * fuzz --check 'blksim io_uring -d3 -s2 -p0 --set run.runtime=10us /dev/nullb0'}.
 */
public final class CaseLine {
  private CaseLine() {}

  /** The case {@code line} describes; one that is not such a line is bad input. */
  public static Case parse(String line) {
    List<String> words = words(line);
    if (!words.isEmpty() && words.get(0).equals("blksim")) {
      words.remove(0);
    }
    if (words.isEmpty() || !words.get(0).equals("io_uring")) {
      throw new ConfigError(
          "--check "
              + line
              + ": expected a command line such as 'blksim io_uring -d32 /dev/nullb0'");
    }
    List<Opt> opts = new ArrayList<>();
    List<String> files = new ArrayList<>();
    int tables = 0;
    for (int i = 1; i < words.size(); i++) {
      String w = words.get(i);
      if (w.startsWith("--")) {
        if (i + 1 >= words.size()) {
          throw new ConfigError("--check: " + w + " needs a value");
        }
        String v = words.get(++i);
        if (w.equals("--set")) {
          int eq = v.indexOf('=');
          if (eq <= 0) {
            throw new ConfigError("--check: --set " + v + ": expected path=value");
          }
          opts.add(new Opt("set:" + v.substring(0, eq), v.substring(eq + 1)));
        } else if (w.equals("--dm-table")) {
          opts.add(new Opt("dm:" + tables++, v));
        } else if (w.equals("--null-blk")) {
          for (String p : v.trim().split("\\s+")) {
            int eq = p.indexOf('=');
            opts.add(
                eq < 0
                    ? new Opt("nb:" + p, "1")
                    : new Opt("nb:" + p.substring(0, eq), p.substring(eq + 1)));
          }
        } else {
          opts.add(new Opt(w, v));
        }
      } else if (w.equals("-h") || w.equals("-?")) {
        throw new ConfigError("--check: " + w + " asks for help; a case is a run");
      } else if (w.startsWith("-") && w.length() > 2) {
        opts.add(new Opt(w.substring(0, 2), w.substring(2)));
      } else if (w.startsWith("-") && w.length() == 2 && i + 1 < words.size()) {
        opts.add(new Opt(w, words.get(++i)));
      } else {
        files.add(w);
      }
    }
    if (opts.stream().noneMatch(o -> o.name().equals(Case.RUNTIME))) {
      throw new ConfigError(
          "--check " + line + ": give the runtime as the fuzzer does, --set run.runtime=100us");
    }
    return new Case(opts, files);
  }

  /**
   * The words of {@code line} as a POSIX shell splits them, for what such a line holds: blanks,
   * single quotes (literal), double quotes (with backslash before {@code " \ $ `}), and a backslash
   * outside quotes; no expansions.
   */
  static List<String> words(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    char quote = 0;
    boolean any = false;
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (quote == '\'') {
        if (ch == '\'') {
          quote = 0;
        } else {
          w.append(ch);
        }
      } else if (quote == '"') {
        if (ch == '"') {
          quote = 0;
        } else if (ch == '\\'
            && i + 1 < line.length()
            && "\"\\$`".indexOf(line.charAt(i + 1)) >= 0) {
          w.append(line.charAt(++i));
        } else {
          w.append(ch);
        }
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
        any = true;
      } else if (ch == '\\' && i + 1 < line.length()) {
        w.append(line.charAt(++i));
        any = true;
      } else if (Character.isWhitespace(ch)) {
        if (any) {
          out.add(w.toString());
          w.setLength(0);
          any = false;
        }
      } else {
        w.append(ch);
        any = true;
      }
    }
    if (quote != 0) {
      throw new ConfigError("--check " + line + ": a quote is not closed");
    }
    if (any) {
      out.add(w.toString());
    }
    return out;
  }
}

package blksim.loadgen.perf;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pasted {@code perf report --stdio}, read as mail gives it (docs/your-box.md 2): with or without
 * the Children column, {@code [k]}/{@code [.]} markers, {@code #} comment lines, callchain lines,
 * {@code >} quoting, and lines a mail client wrapped. Lines that are none of these (prose,
 * "Before:") are skipped and counted, never read as samples.
 *
 * @param children whether the report has a Children column (its Self column is the one read)
 * @param skipped lines that were neither samples, comments, headers nor callchains
 * @param joined wrapped lines joined to the line before
 * @param sections the labels of a paste that holds several runs ("Before:", "After:"), empty if
 *     none
 * @param section the section read, null if there are none
 */
public record PerfReport(
    List<PerfEntry> entries,
    boolean children,
    int skipped,
    int joined,
    List<String> sections,
    String section) {

  /** A share read from a report may exceed 100 % by this much, rounding of the printed shares. */
  static final double SUM_SLACK_PCT = 0.5;

  /** An entry: an optional +/- fold marker, one or two shares, then the columns. */
  private static final Pattern ENTRY =
      Pattern.compile("^[+-]?\\s*(\\d+(?:\\.\\d+)?)%(?:\\s+(\\d+(?:\\.\\d+)?)%)?(?:\\s+(.*))?$");

  /** A share with a sign, as perf diff's Delta column prints it. */
  private static final Pattern SIGNED_SHARE = Pattern.compile("^[+-]\\d+(?:\\.\\d+)?%.*");

  /** The privilege marker before a symbol. */
  private static final Pattern MARKER = Pattern.compile("(^|\\s)\\[([k.gHu])\\](\\s+|$)");

  /** A line that labels the run below it, as mails label theirs: "Before:", "After:". */
  private static final Pattern SECTION = Pattern.compile("^([A-Za-z][A-Za-z0-9 _-]{0,30}):$");

  /**
   * Reads {@code file}, named in messages as given.
   *
   * @param section the labelled section to read, null for the first
   */
  public static PerfReport read(Path file, String section) {
    return parse(lines(file, "--perf"), OneLine.of(file.toString()), section);
  }

  static List<String> lines(Path file, String option) {
    String where = OneLine.of(file.toString());
    if (!Files.isRegularFile(file)) {
      throw new ConfigError(option + " " + where + ": no such file");
    }
    try {
      byte[] bytes = Files.readAllBytes(file);
      String text = new String(bytes, StandardCharsets.UTF_8).replace("\r\n", "\n");
      return List.of(text.split("\n", -1));
    } catch (IOException e) {
      throw new ConfigError(option + " " + where + ": cannot read: " + OneLine.of(e.getMessage()));
    }
  }

  /** Strips mail quoting ({@code > }) and trailing blanks. */
  static String unquoted(String line) {
    String s = line.replace('\t', ' ');
    while (s.startsWith(">")) {
      s = s.substring(1);
      if (s.startsWith(" ")) {
        s = s.substring(1);
      }
    }
    return s.stripTrailing();
  }

  /** A callchain line: {@code |}, {@code ---sym}, {@code --12.3%--sym}, or a tree's blank. */
  static boolean callchain(String trimmed) {
    return trimmed.startsWith("|") || trimmed.startsWith("--") || trimmed.startsWith("---");
  }

  /**
   * Parses {@code raw}.
   *
   * @throws ConfigError if no line is a sample, or the shares sum to more than 100 % where the
   *     report has no Children column
   */
  public static PerfReport parse(List<String> raw, String what, String wanted) {
    boolean childrenHeader = false;
    List<String> sections = new ArrayList<>();
    String current = null;
    List<String> lines = new ArrayList<>();
    for (String r : raw) {
      lines.add(unquoted(r));
    }
    List<PerfEntry> entries = new ArrayList<>();
    int skipped = 0;
    int joined = 0;
    boolean twoColumns = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String t = line.strip();
      if (t.isEmpty()) {
        continue;
      }
      if (t.startsWith("#")) {
        String h = t.toLowerCase(Locale.ROOT);
        if (h.contains("children") && h.contains("self")) {
          childrenHeader = true;
        }
        continue;
      }
      if (header(t)) {
        if (t.toLowerCase(Locale.ROOT).startsWith("children")) {
          childrenHeader = true;
        }
        continue;
      }
      if (callchain(t)) {
        continue;
      }
      Matcher sec = SECTION.matcher(t);
      if (sec.matches()) {
        current = sec.group(1);
        sections.add(current);
        continue;
      }
      boolean read =
          wanted == null
              ? sections.isEmpty() || current.equals(sections.get(0))
              : current != null && current.equalsIgnoreCase(wanted);
      Matcher m = ENTRY.matcher(t);
      if (!m.matches()) {
        skipped++;
        continue;
      }
      String rest = m.group(3) == null ? "" : m.group(3).strip();
      // a wrapped line: the columns (or the symbol) went to the next line
      while (incomplete(rest) && i + 1 < lines.size() && continuation(lines.get(i + 1))) {
        rest = (rest + " " + lines.get(i + 1).strip()).strip();
        i++;
        joined++;
      }
      if (rest.isEmpty() || SIGNED_SHARE.matcher(rest).matches()) {
        skipped++;
        continue;
      }
      PerfEntry e = entry(m, rest, what);
      if (e == null) {
        skipped++;
        continue;
      }
      if (!read) {
        continue;
      }
      twoColumns |= m.group(2) != null;
      entries.add(e);
    }
    if (wanted != null && sections.stream().noneMatch(wanted::equalsIgnoreCase)) {
      throw new ConfigError(
          what
              + ": no section "
              + OneLine.quoted(OneLine.clipped(wanted))
              + (sections.isEmpty()
                  ? " (it has no labelled sections: leave --section out)"
                  : ": it has " + String.join(", ", sections)));
    }
    if (entries.isEmpty()) {
      throw new ConfigError(
          what
              + ": no perf report line in it (expected lines such as '+    5.56%  io_uring "
              + " [kernel.vmlinux]  [k] blk_mq_submit_bio', as perf report --stdio prints them)");
    }
    boolean children = childrenHeader || twoColumns;
    double sum = entries.stream().mapToDouble(PerfEntry::selfPct).sum();
    if (sum > 100 + SUM_SLACK_PCT) {
      throw new ConfigError(
          String.format(
              Locale.ROOT,
              "%s: the %s column sums to %.2f%%, more than 100%%%s: not one perf report's shares"
                  + " (paste one run's report; with perf report --children the Self column is"
                  + " read)",
              what,
              children ? "Self" : "Overhead",
              sum,
              children ? "" : " with no Children column"));
    }
    String section =
        wanted != null
            ? sections.stream().filter(wanted::equalsIgnoreCase).findFirst().orElse(null)
            : sections.isEmpty() ? null : sections.get(0);
    return new PerfReport(
        List.copyOf(entries), children, skipped, joined, List.copyOf(sections), section);
  }

  /** perf report's column header without the {@code #}: "Overhead Command Shared Object ...". */
  private static boolean header(String t) {
    String h = t.toLowerCase(Locale.ROOT);
    return (h.startsWith("overhead") || h.startsWith("children") || h.startsWith("self"))
        && h.contains("symbol");
  }

  /** The columns after the shares hold no symbol yet. */
  private static boolean incomplete(String rest) {
    if (rest.isEmpty()) {
      return true;
    }
    Matcher mk = MARKER.matcher(rest);
    if (mk.find()) {
      return rest.substring(mk.end()).isBlank();
    }
    String[] tok = rest.split("\\s+");
    String last = tok[tok.length - 1];
    return last.startsWith("[") && last.endsWith("]");
  }

  /** A line that can be the rest of a wrapped entry. */
  private static boolean continuation(String line) {
    String t = line.strip();
    return !t.isEmpty()
        && !t.startsWith("#")
        && !callchain(t)
        && !ENTRY.matcher(t).matches()
        && !header(t);
  }

  private static PerfEntry entry(Matcher m, String rest, String what) {
    double first = share(m.group(1), what);
    double second = m.group(2) == null ? Double.NaN : share(m.group(2), what);
    double self = Double.isNaN(second) ? first : second;
    double children = Double.isNaN(second) ? Double.NaN : first;
    String symbol;
    String before;
    Boolean user = null;
    Matcher mk = MARKER.matcher(rest);
    if (mk.find()) {
      symbol = rest.substring(mk.end()).strip();
      before = rest.substring(0, mk.start()).strip();
      user = !"k".equals(mk.group(2));
    } else {
      String[] tok = rest.split("\\s+");
      symbol = tok[tok.length - 1];
      before = rest.substring(0, rest.length() - symbol.length()).strip();
    }
    if (symbol.isEmpty() || symbol.contains("%")) {
      return null;
    }
    String[] cols = before.isEmpty() ? new String[0] : before.split("\\s+");
    String dso = cols.length == 0 ? "" : cols[cols.length - 1];
    String command = cols.length >= 2 ? cols[0] : "";
    if (user == null) {
      user = !dso.isEmpty() && !(dso.startsWith("[") && dso.endsWith("]"));
    }
    return new PerfEntry(symbol, self, children, command, dso, user);
  }

  private static double share(String s, String what) {
    double v = Double.parseDouble(s);
    if (!Double.isFinite(v) || v > 100 + SUM_SLACK_PCT) {
      throw new ConfigError(
          what + ": a share of " + OneLine.clipped(s) + "% is more than 100%: not a perf share");
    }
    return v;
  }
}

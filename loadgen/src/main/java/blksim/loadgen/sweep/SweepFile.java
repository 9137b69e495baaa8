package blksim.loadgen.sweep;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import blksim.config.Scenario;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A sweep file (docs/usage.md, "Sweeps"): a base command line, settings of every point, and axes,
 * as a full grid or zipped.
 *
 * <pre>
 * base = "io_uring -d32 -s32 -c32 -b512 -p1 /dev/nullb0"
 * set { run.runtime = 50ms }
 * axes {
 *   cpus    = [1, 2, 4, 8]
 *   patches = ["", "bdev-cache-in-file,end-request-fast-path"]
 *   "-d"    = [8, 32, 128]
 * }
 * </pre>
 *
 * The axes are in the order of the file's lines; in a grid the first varies slowest.
 */
public final class SweepFile {
  /** The most points one sweep holds: a grid past it is refused before any point is made. */
  public static final int MAX_POINTS = 10_000;

  private static final Set<String> KEYS =
      Set.of("base", "set", "axes", "combine", "patch-files", "profile-files");

  private final String where;
  private final List<String> base;
  private final List<String> sets;
  private final List<String> patchFiles;
  private final List<String> profileFiles;
  private final List<Axis> axes;
  private final boolean zip;

  private SweepFile(
      String where,
      List<String> base,
      List<String> sets,
      List<String> patchFiles,
      List<String> profileFiles,
      List<Axis> axes,
      boolean zip) {
    this.where = where;
    this.base = base;
    this.sets = sets;
    this.patchFiles = patchFiles;
    this.profileFiles = profileFiles;
    this.axes = axes;
    this.zip = zip;
  }

  /** Reads {@code path}; anything wrong in it is one line naming the file and the key. */
  public static SweepFile read(Path path) {
    return parse(Scenario.readFile(path, "sweep file"), OneLine.of(path.toString()));
  }

  /** The sweep that {@code file} describes; {@code where} names it in messages. */
  static SweepFile parse(Config file, String where) {
    for (String key : new java.util.TreeSet<>(file.root().keySet())) {
      if (!KEYS.contains(key)) {
        throw new ConfigError(
            where
                + ": "
                + OneLine.quoted(OneLine.clipped(key))
                + " is not a key of a sweep file; accepted "
                + String.join(", ", new java.util.TreeSet<>(KEYS)));
      }
    }
    List<String> base = base(file, where);
    List<String> sets = new ArrayList<>();
    if (file.hasPath("set")) {
      if (file.getValue("set").valueType() != ConfigValueType.OBJECT) {
        throw new ConfigError(
            where + ": set must be an object of settings, e.g. set { run.runtime = 50ms }");
      }
      Map<String, ConfigValue> sorted = new java.util.TreeMap<>();
      for (Map.Entry<String, ConfigValue> e : file.getConfig("set").entrySet()) {
        sorted.put(e.getKey(), e.getValue());
      }
      sorted.forEach((k, v) -> sets.add(k + "=" + hocon(v)));
    }
    List<String> patchFiles = strings(file, "patch-files", where);
    List<String> profileFiles = strings(file, "profile-files", where);
    boolean zip = combine(file, where);
    List<Axis> axes = axes(file, where);
    return new SweepFile(where, base, sets, patchFiles, profileFiles, axes, zip);
  }

  public List<Axis> axes() {
    return axes;
  }

  /** The base command line, its words quoted where a shell would split them. */
  public String base() {
    return new Point(0, List.of(), base).commandLine().substring("blksim ".length());
  }

  /** The command of the base: io_uring or run. */
  public String command() {
    return base.get(0);
  }

  /**
   * Every point of the sweep, in order, each as the command line that runs it alone.
   *
   * @param options what the base command accepts
   */
  public List<Point> points(Axis.Options options) {
    for (Axis a : axes) {
      Axis.check(where, a.name(), options);
    }
    conflicts(options);
    List<String> common = new ArrayList<>(base);
    for (String f : profileFiles) {
      common = Axis.added(common, "--profile-file", f);
    }
    for (String f : patchFiles) {
      common = Axis.added(common, "--patch-file", f);
    }
    for (String s : sets) {
      common = Axis.added(common, "--set", s);
    }
    List<List<String>> combos = zip ? zipped() : grid();
    List<Point> points = new ArrayList<>();
    for (List<String> values : combos) {
      List<String> args = common;
      for (int i = 0; i < axes.size(); i++) {
        args = axes.get(i).apply(args, values.get(i), options);
      }
      points.add(new Point(points.size(), values, args));
    }
    return points;
  }

  /** Two axes that set the same thing: cpus and --cpus, profile and --profile. */
  private void conflicts(Axis.Options options) {
    Set<String> names = new LinkedHashSet<>();
    axes.forEach(a -> names.add(a.name()));
    String[][] pairs = {
      {"cpus", "--cpus"},
      {"cpus", "-n"},
      {"profile", "--profile"},
      {"kernel", "--kernel"},
      {"seed", "--seed"},
      {"patches", "--patch"},
      {"null-blk", "--null-blk"}
    };
    for (String[] p : pairs) {
      if (names.contains(p[0]) && names.contains(p[1])) {
        throw new ConfigError(
            where
                + ": axes "
                + p[0]
                + " and "
                + p[1]
                + " both set the same thing; give one of them");
      }
    }
  }

  private List<List<String>> grid() {
    long n = 1;
    for (Axis a : axes) {
      n *= a.values().size();
      if (n > MAX_POINTS) {
        throw new ConfigError(
            where
                + ": the grid of the axes has more than "
                + MAX_POINTS
                + " points; accepted at most "
                + MAX_POINTS
                + " (fewer values, or combine = zip)");
      }
    }
    List<List<String>> combos = new ArrayList<>();
    combos.add(List.of());
    for (Axis a : axes) {
      List<List<String>> next = new ArrayList<>();
      for (List<String> c : combos) {
        for (String v : a.values()) {
          List<String> more = new ArrayList<>(c);
          more.add(v);
          next.add(more);
        }
      }
      combos = next;
    }
    return combos;
  }

  private List<List<String>> zipped() {
    int n = axes.get(0).values().size();
    for (Axis a : axes) {
      if (a.values().size() != n) {
        throw new ConfigError(
            where
                + ": combine = zip needs axes of one length: "
                + axes.get(0).name()
                + " has "
                + n
                + " values, "
                + a.name()
                + " "
                + a.values().size());
      }
    }
    List<List<String>> combos = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<String> c = new ArrayList<>();
      for (Axis a : axes) {
        c.add(a.values().get(i));
      }
      combos.add(c);
    }
    return combos;
  }

  private static List<String> base(Config file, String where) {
    String forms =
        ": base must be a command line, as a string (base = \"io_uring -d32 -s32 -c32 -b512 -p1"
            + " /dev/nullb0\", quoted words as a shell takes them) or a list of words (base ="
            + " [io_uring, -d32, /dev/nullb0]), starting with io_uring or run";
    if (!file.hasPath("base")) {
      throw new ConfigError(where + forms);
    }
    ConfigValue v = file.getValue("base");
    List<String> words = new ArrayList<>();
    if (v.valueType() == ConfigValueType.STRING) {
      words = words(where, (String) v.unwrapped());
    } else if (v.valueType() == ConfigValueType.LIST) {
      for (ConfigValue w : (ConfigList) v) {
        if (w.valueType() == ConfigValueType.OBJECT
            || w.valueType() == ConfigValueType.LIST
            || w.valueType() == ConfigValueType.NULL) {
          throw new ConfigError(where + forms);
        }
        words.add(render(w));
      }
    } else {
      throw new ConfigError(where + forms);
    }
    if (words.isEmpty() || !(words.get(0).equals("io_uring") || words.get(0).equals("run"))) {
      throw new ConfigError(
          where
              + ": base "
              + OneLine.quoted(OneLine.clipped(String.join(" ", words)))
              + " must start with io_uring or run");
    }
    return words;
  }

  /** The words of a command line: split on blanks, with '...' and "..." quoting as in a shell. */
  static List<String> words(String where, String line) {
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean any = false;
    char quote = 0;
    for (char c : line.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          w.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        any = true;
      } else if (Character.isWhitespace(c)) {
        if (any) {
          words.add(w.toString());
        }
        w.setLength(0);
        any = false;
      } else {
        w.append(c);
        any = true;
      }
    }
    if (quote != 0) {
      throw new ConfigError(where + ": base has a " + quote + " that is never closed");
    }
    if (any) {
      words.add(w.toString());
    }
    return words;
  }

  private static boolean combine(Config file, String where) {
    if (!file.hasPath("combine")) {
      return false;
    }
    String c =
        file.getValue("combine").valueType() == ConfigValueType.STRING
            ? file.getString("combine")
            : file.getValue("combine").render(ConfigRenderOptions.concise());
    if (!c.equals("grid") && !c.equals("zip")) {
      throw new ConfigError(
          where
              + ": combine = "
              + OneLine.clipped(c)
              + ": accepted grid (every combination, the default) or zip (the i-th values of"
              + " every axis together)");
    }
    return c.equals("zip");
  }

  private static List<String> strings(Config file, String key, String where) {
    if (!file.hasPath(key)) {
      return List.of();
    }
    ConfigValue v = file.getValue(key);
    if (v.valueType() != ConfigValueType.LIST) {
      throw new ConfigError(where + ": " + key + " must be a list of file names");
    }
    List<String> out = new ArrayList<>();
    for (ConfigValue e : (ConfigList) v) {
      if (e.valueType() != ConfigValueType.STRING || ((String) e.unwrapped()).isBlank()) {
        throw new ConfigError(where + ": " + key + " must be a list of file names");
      }
      out.add((String) e.unwrapped());
    }
    return out;
  }

  private static List<Axis> axes(Config file, String where) {
    if (!file.hasPath("axes") || file.getValue("axes").valueType() != ConfigValueType.OBJECT) {
      throw new ConfigError(
          where
              + ": axes must be an object of axes, e.g. axes { cpus = [1, 2, 4], \"-d\" = [8, 32] }");
    }
    ConfigObject axes = file.getObject("axes");
    if (axes.isEmpty()) {
      throw new ConfigError(where + ": axes is empty; give at least one axis");
    }
    // a path axis ("io-uring.depth") is an object of HOCON's: its leaves are the axes
    List<Map.Entry<String, ConfigValue>> entries = new ArrayList<>();
    for (String name : axes.keySet()) {
      ConfigValue v = axes.get(name);
      if (v.valueType() == ConfigValueType.OBJECT && !isRange((ConfigObject) v)) {
        leaves(name, (ConfigObject) v, entries);
      } else {
        entries.add(Map.entry(name, v));
      }
    }
    entries.sort(
        Comparator.comparingInt(
                (Map.Entry<String, ConfigValue> e) -> e.getValue().origin().lineNumber())
            .thenComparing(Map.Entry::getKey));
    List<Axis> out = new ArrayList<>();
    for (Map.Entry<String, ConfigValue> e : entries) {
      out.add(new Axis(e.getKey(), values(where, e.getKey(), e.getValue())));
    }
    return out;
  }

  private static void leaves(
      String prefix, ConfigObject o, List<Map.Entry<String, ConfigValue>> entries) {
    for (String k : o.keySet()) {
      ConfigValue v = o.get(k);
      String name = prefix + "." + k;
      if (v.valueType() == ConfigValueType.OBJECT && !isRange((ConfigObject) v)) {
        leaves(name, (ConfigObject) v, entries);
      } else {
        entries.add(Map.entry(name, v));
      }
    }
  }

  private static boolean isRange(ConfigObject o) {
    return o.containsKey("from") || o.containsKey("to");
  }

  /** An axis's values: a list, a range "A..B", or { from, to, step } / { from, to, times }. */
  private static List<String> values(String where, String axis, ConfigValue v) {
    String at = where + ": axis " + OneLine.quoted(OneLine.clipped(axis));
    List<String> values = new ArrayList<>();
    switch (v.valueType()) {
      case LIST -> {
        for (ConfigValue e : (ConfigList) v) {
          values.add(value(at, axis, e));
        }
      }
      case STRING -> {
        String s = ((String) v.unwrapped()).trim();
        String[] ends = s.split("\\.\\.", -1);
        if (ends.length != 2) {
          throw new ConfigError(at + " = " + OneLine.quoted(OneLine.clipped(s)) + ": " + FORMS);
        }
        values = range(at, number(at, ends[0].trim()), number(at, ends[1].trim()), 1, 0);
      }
      case OBJECT -> {
        ConfigObject o = (ConfigObject) v;
        for (String k : o.keySet()) {
          if (!Set.of("from", "to", "step", "times").contains(k)) {
            throw new ConfigError(
                at + ": a range has from, to and step or times; not " + OneLine.quoted(k));
          }
        }
        if (!o.containsKey("from") || !o.containsKey("to")) {
          throw new ConfigError(at + ": a range needs from and to, e.g. { from = 1, to = 8 }");
        }
        if (o.containsKey("step") && o.containsKey("times")) {
          throw new ConfigError(at + ": a range steps by step or by times, not both");
        }
        long from = number(at, render(o.get("from")));
        long to = number(at, render(o.get("to")));
        long step = o.containsKey("step") ? number(at, render(o.get("step"))) : 1;
        long times = o.containsKey("times") ? number(at, render(o.get("times"))) : 0;
        values = range(at, from, to, o.containsKey("times") ? 0 : step, times);
      }
      default -> throw new ConfigError(at + ": " + FORMS);
    }
    if (values.isEmpty()) {
      throw new ConfigError(at + " has no values; give at least one");
    }
    Set<String> seen = new java.util.HashSet<>();
    for (String s : values) {
      if (!seen.add(s)) {
        throw new ConfigError(
            at + " lists " + OneLine.quoted(OneLine.clipped(s)) + " twice; give each value once");
      }
    }
    return values;
  }

  private static final String FORMS =
      "accepted a list ([1, 2, 4]), a range \"1..8\", or { from = 8, to = 256, times = 2 } /"
          + " { from = 1, to = 8, step = 1 }";

  private static List<String> range(String at, long from, long to, long step, long times) {
    if (to < from) {
      throw new ConfigError(at + ": the range ends (" + to + ") before it starts (" + from + ")");
    }
    if (step == 0 && times < 2) {
      throw new ConfigError(at + ": times must be 2 or more, got " + times);
    }
    if (step < 0 || (step == 0 && times == 0)) {
      throw new ConfigError(at + ": step must be 1 or more, got " + step);
    }
    if (step == 0 && from < 1) {
      throw new ConfigError(at + ": a range by times starts at 1 or more, got " + from);
    }
    List<String> out = new ArrayList<>();
    for (long x = from; x <= to; x = step > 0 ? x + step : x * times) {
      out.add(Long.toString(x));
      if (out.size() > MAX_POINTS) {
        throw new ConfigError(at + ": the range has more than " + MAX_POINTS + " values");
      }
      if (x > Long.MAX_VALUE / Math.max(times, 2) || x > Long.MAX_VALUE - Math.max(step, 1)) {
        break;
      }
    }
    return out;
  }

  private static long number(String at, String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new ConfigError(
          at
              + ": a range's ends and steps are whole numbers, got "
              + OneLine.quoted(OneLine.clipped(s)));
    }
  }

  /** One value of an axis as the command line takes it. */
  private static String value(String at, String axis, ConfigValue e) {
    boolean path = !axis.startsWith("-") && Axis.Named.of(axis) == null;
    if (path) {
      return hocon(e);
    }
    if (e.valueType() == ConfigValueType.LIST && axis.equals("patches")) {
      // a patch set as a list of names
      List<String> names = new ArrayList<>();
      for (ConfigValue n : (ConfigList) e) {
        names.add(render(n));
      }
      return String.join(",", names);
    }
    if (e.valueType() == ConfigValueType.OBJECT
        || e.valueType() == ConfigValueType.LIST
        || e.valueType() == ConfigValueType.NULL) {
      throw new ConfigError(
          at + ": a value is a number or a string, got " + OneLine.clipped(hocon(e)));
    }
    String s = render(e);
    if (!axis.equals("patches") && s.isBlank()) {
      throw new ConfigError(at + ": an empty value (\"\" means no patch on the patches axis only)");
    }
    return s;
  }

  private static String render(ConfigValue v) {
    return v.valueType() == ConfigValueType.STRING
        ? (String) v.unwrapped()
        : v.render(ConfigRenderOptions.concise());
  }

  /** A value as HOCON text, for {@code --set path=value}. */
  private static String hocon(ConfigValue v) {
    if (v.valueType() == ConfigValueType.STRING) {
      String s = (String) v.unwrapped();
      // a plain word (a duration, a name) as the user would type it; anything else quoted
      // (a string that reads as a number, such as a kernel "5.10", stays quoted: 5.10 is 5.1)
      boolean plain = s.matches("[A-Za-z0-9._+-]+") && !s.matches("[0-9.eE+-]+");
      return plain ? s : v.render(ConfigRenderOptions.concise());
    }
    return v.render(ConfigRenderOptions.concise());
  }
}

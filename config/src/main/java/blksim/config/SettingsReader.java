package blksim.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one checked reader of a resolved {@link Config}: every typed value blksim reads goes through
 * it, and every failure is a one-line {@link ConfigError} naming the key, where it was written, the
 * value (quoted and escaped) and what is accepted. Whole numbers must be whole ({@code 16.9} is not
 * an I/O depth), durations must carry a unit (HOCON would read a bare {@code 10} as milliseconds,
 * where {@code -r 10} means seconds), and every number is bounded so that none overflows when it
 * becomes picoseconds.
 */
final class SettingsReader {
  private final Config config;

  SettingsReader(Config config) {
    this.config = config;
  }

  int intIn(String path, int lo, int hi) {
    return (int) longIn(path, lo, hi);
  }

  long longIn(String path, long lo, long hi) {
    return whole(path, raw(path), lo, hi, "");
  }

  /** A list of whole numbers, each in {@code lo..hi}. */
  List<Integer> intsIn(String path, int lo, int hi) {
    ConfigValue v = raw(path);
    if (v.valueType() != ConfigValueType.LIST) {
      throw new ConfigError(
          where(path) + path + " = " + shown(v) + " is not a list: expected e.g. [0, 1]");
    }
    List<Integer> out = new ArrayList<>();
    int i = 0;
    for (ConfigValue e : config.getList(path)) {
      out.add((int) whole(path, e, lo, hi, "[" + i++ + "]"));
    }
    return out;
  }

  boolean bool(String path) {
    return read(path, () -> config.getBoolean(path));
  }

  /**
   * A boolean the kernel takes as a number ({@code echo 0 > .../queue/iostats}, {@code
   * no_sched=1}): HOCON's true and false, or 0 and 1.
   */
  boolean flag(String path) {
    ConfigValue v = raw(path);
    if (v.valueType() == ConfigValueType.BOOLEAN) {
      return (Boolean) v.unwrapped();
    }
    BigDecimal exact = exact(v);
    if (exact != null && (exact.signum() == 0 || exact.compareTo(BigDecimal.ONE) == 0)) {
      return exact.signum() != 0;
    }
    if (v.unwrapped() instanceof String s && (s.equals("true") || s.equals("false"))) {
      return s.equals("true");
    }
    throw new ConfigError(
        where(path) + path + " = " + shown(v) + " is not accepted: true, false, 0 or 1");
  }

  String string(String path) {
    return read(path, () -> config.getString(path));
  }

  List<String> strings(String path) {
    return read(path, () -> config.getStringList(path));
  }

  /** A number in {@code lo..hi}, of {@code unit} (named in the message). */
  double doubleIn(String path, double lo, double hi, String unit) {
    ConfigValue v = raw(path);
    double d = number(path, v, "");
    if (!(d >= lo && d <= hi)) {
      throw new ConfigError(
          where(path)
              + path
              + " = "
              + shown(v)
              + " is out of range: accepted "
              + plain(lo)
              + " to "
              + plain(hi)
              + " "
              + unit);
    }
    return d;
  }

  /**
   * A HOCON duration (1s, 250ms, 10us) in nanoseconds, from {@code minNs} to {@code maxNs}; a bare
   * number is refused unless it is 0.
   */
  long durationNs(String path, long minNs, long maxNs) {
    ConfigValue v = raw(path);
    if (v.valueType() == ConfigValueType.NUMBER && ((Number) v.unwrapped()).doubleValue() != 0) {
      throw new ConfigError(
          where(path)
              + path
              + " = "
              + shown(v)
              + " has no unit: write it with one, e.g. "
              + v.unwrapped()
              + "s or "
              + v.unwrapped()
              + "ms (a bare number would be read as milliseconds)");
    }
    Duration d = read(path, () -> config.getDuration(path));
    long ns = d.toNanos();
    if (ns < minNs || ns > maxNs) {
      throw new ConfigError(
          where(path)
              + path
              + " = "
              + shown(v)
              + " is out of range: accepted "
              + VirtualDuration.text(minNs)
              + " to "
              + VirtualDuration.text(maxNs));
    }
    return ns;
  }

  <E extends Enum<E>> E oneOf(String path, Class<E> type) {
    String v = string(path);
    for (E e : type.getEnumConstants()) {
      if (ConfigNames.kebab(e.name()).equals(v)) {
        return e;
      }
    }
    throw new ConfigError(
        where(path)
            + path
            + " = "
            + OneLine.quoted(v)
            + " is not accepted: one of "
            + ConfigNames.kebabNames(type));
  }

  Config config() {
    return config;
  }

  /** Where {@code path} was written, as a prefix of a message: empty for reference.conf. */
  String where(String path) {
    if (!config.hasPathOrNull(path)) {
      return "";
    }
    String origin = config.getValue(path).origin().description();
    return origin.startsWith("reference.conf") || origin.startsWith("merge of")
        ? ""
        : OneLine.of(origin) + ": ";
  }

  private ConfigValue raw(String path) {
    return read(path, () -> config.getValue(path));
  }

  private long whole(String path, ConfigValue v, long lo, long hi, String index) {
    number(path, v, index);
    BigDecimal exact = exact(v);
    String why = null;
    if (exact == null || exact.stripTrailingZeros().scale() > 0) {
      why = " is not a whole number";
    } else if (exact.compareTo(BigDecimal.valueOf(lo)) < 0
        || exact.compareTo(BigDecimal.valueOf(hi)) > 0) {
      why = " is out of range";
    }
    if (why != null) {
      throw new ConfigError(
          where(path) + path + index + " = " + shown(v) + why + ": accepted " + lo + " to " + hi);
    }
    return exact.longValueExact();
  }

  /** The number {@code v} holds, a number or a string that spells one. */
  private double number(String path, ConfigValue v, String index) {
    BigDecimal exact = exact(v);
    if (exact == null) {
      throw new ConfigError(where(path) + path + index + " = " + shown(v) + " is not a number");
    }
    return exact.doubleValue();
  }

  private static BigDecimal exact(ConfigValue v) {
    Object u = v.unwrapped();
    try {
      if (u instanceof Integer || u instanceof Long) {
        return BigDecimal.valueOf(((Number) u).longValue());
      }
      if (u instanceof Number n) {
        double d = n.doubleValue();
        return Double.isFinite(d) ? new BigDecimal(d) : null;
      }
      if (u instanceof String s && s.trim().length() <= 40) {
        return new BigDecimal(s.trim());
      }
    } catch (NumberFormatException e) {
      return null;
    }
    return null;
  }

  /** A value as the user wrote it, quoted and escaped. */
  private static String shown(ConfigValue v) {
    Object u = v.unwrapped();
    String text = u instanceof String s ? s : v.render();
    return OneLine.quoted(text.length() > 60 ? text.substring(0, 60) + "..." : text);
  }

  private static String plain(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15
        ? Long.toString((long) d)
        : String.format(Locale.ROOT, "%s", d);
  }

  private interface Getter<T> {
    T get();
  }

  private static <T> T read(String path, Getter<T> getter) {
    try {
      return getter.get();
    } catch (ConfigException e) {
      throw new ConfigError(OneLine.of(ConfigNames.oneLine(e)));
    }
  }
}

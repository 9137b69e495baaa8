package blksim.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.List;

/**
 * Range-checked getters over a resolved {@link Config}: every failure is a one-line {@link
 * ConfigError}.
 */
final class SettingsReader {
  private final Config config;

  SettingsReader(Config config) {
    this.config = config;
  }

  int intIn(String path, int lo, int hi) {
    int v = read(path, () -> config.getInt(path));
    if (v < lo || v > hi) {
      throw new ConfigError(
          where(path) + path + " = " + v + " is out of range: accepted " + lo + " to " + hi);
    }
    return v;
  }

  long longIn(String path, long lo, long hi) {
    long v = read(path, () -> config.getLong(path));
    if (v < lo || v > hi) {
      throw new ConfigError(
          where(path) + path + " = " + v + " is out of range: accepted " + lo + " to " + hi);
    }
    return v;
  }

  boolean bool(String path) {
    return read(path, () -> config.getBoolean(path));
  }

  String string(String path) {
    return read(path, () -> config.getString(path));
  }

  List<String> strings(String path) {
    return read(path, () -> config.getStringList(path));
  }

  double nonNegativeDouble(String path) {
    double v = read(path, () -> config.getDouble(path));
    if (!(v >= 0) || Double.isInfinite(v)) {
      throw new ConfigError(
          where(path) + path + " = " + v + " must be a number of nanoseconds >= 0");
    }
    return v;
  }

  double positiveDouble(String path) {
    double v = read(path, () -> config.getDouble(path));
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new ConfigError(where(path) + path + " = " + v + " must be a number > 0");
    }
    return v;
  }

  /** A HOCON duration (1s, 250ms, 10us) in nanoseconds, at least {@code minNs}. */
  long durationNs(String path, long minNs) {
    Duration d = read(path, () -> config.getDuration(path));
    long ns = d.toNanos();
    if (ns < minNs) {
      throw new ConfigError(
          where(path)
              + path
              + " = "
              + config.getValue(path).unwrapped()
              + " is too short: accepted durations of at least "
              + minNs
              + " ns");
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
            + v
            + " is not accepted: one of "
            + ConfigNames.kebabNames(type));
  }

  Config config() {
    return config;
  }

  private String where(String path) {
    if (!config.hasPathOrNull(path)) {
      return "";
    }
    String origin = config.getValue(path).origin().description();
    return origin.startsWith("reference.conf") || origin.startsWith("merge of")
        ? ""
        : origin + ": ";
  }

  private interface Getter<T> {
    T get();
  }

  private static <T> T read(String path, Getter<T> getter) {
    try {
      return getter.get();
    } catch (ConfigException e) {
      throw new ConfigError(ConfigNames.oneLine(e));
    }
  }
}

package blksim.config;

import com.typesafe.config.ConfigException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Spelling helpers shared by the settings: kebab-case enum names, one-line HOCON errors. */
final class ConfigNames {
  private ConfigNames() {}

  static String kebab(String enumName) {
    return enumName.toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static <E extends Enum<E>> String kebabNames(Class<E> type) {
    return Arrays.stream(type.getEnumConstants())
        .map(e -> kebab(e.name()))
        .collect(Collectors.joining(", "));
  }

  /** Typesafe Config's message on one line, without the noise of nested origins. */
  static String oneLine(ConfigException e) {
    return e.getMessage().replace('\n', ' ').replaceAll("\\s+", " ").trim();
  }
}

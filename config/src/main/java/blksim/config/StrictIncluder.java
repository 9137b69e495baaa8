package blksim.config;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigIncludeContext;
import com.typesafe.config.ConfigIncluder;
import com.typesafe.config.ConfigIncluderClasspath;
import com.typesafe.config.ConfigIncluderFile;
import com.typesafe.config.ConfigIncluderURL;
import com.typesafe.config.ConfigObject;
import java.io.File;
import java.net.URL;

/**
 * HOCON's includes in the files a user gives: each one must be found, {@code include "x.conf"} as
 * {@code include required("x.conf")}. HOCON drops a missing plain include without a word; one that
 * a user wrote is meant to be read, so a misspelt name is refused rather than run without it. A
 * file that is not found or cannot be read is one line naming it.
 */
final class StrictIncluder
    implements ConfigIncluder, ConfigIncluderFile, ConfigIncluderURL, ConfigIncluderClasspath {
  /** The file whose includes these are, for the message. */
  private final String top;

  private final ConfigIncluder fallback;

  StrictIncluder(String top) {
    this(top, null);
  }

  private StrictIncluder(String top, ConfigIncluder fallback) {
    this.top = top;
    this.fallback = fallback;
  }

  @Override
  public ConfigIncluder withFallback(ConfigIncluder fallback) {
    return new StrictIncluder(top, fallback);
  }

  @Override
  public ConfigObject include(ConfigIncludeContext context, String what) {
    try {
      return fallback.include(required(context), what);
    } catch (ConfigException.IO e) {
      throw refused("\"" + what + "\"", e);
    }
  }

  @Override
  public ConfigObject includeFile(ConfigIncludeContext context, File what) {
    try {
      return ((ConfigIncluderFile) fallback).includeFile(required(context), what);
    } catch (ConfigException.IO e) {
      throw refused("file(\"" + what + "\")", e);
    }
  }

  @Override
  public ConfigObject includeURL(ConfigIncludeContext context, URL what) {
    try {
      return ((ConfigIncluderURL) fallback).includeURL(required(context), what);
    } catch (ConfigException.IO e) {
      throw refused("url(\"" + what + "\")", e);
    }
  }

  @Override
  public ConfigObject includeResources(ConfigIncludeContext context, String what) {
    try {
      return ((ConfigIncluderClasspath) fallback).includeResources(required(context), what);
    } catch (ConfigException.IO e) {
      throw refused("classpath(\"" + what + "\")", e);
    }
  }

  private static ConfigIncludeContext required(ConfigIncludeContext context) {
    return context.setParseOptions(context.parseOptions().setAllowMissing(false));
  }

  private ConfigError refused(String what, ConfigException.IO e) {
    // a file that is not there is a FileNotFoundException, or, where HOCON then looked on the
    // class path, "resource not found on classpath"; only a denied read is something else
    Throwable cause = e.getCause();
    boolean missing =
        !(cause instanceof java.nio.file.AccessDeniedException)
            && (cause == null
                || cause.getMessage() == null
                || !cause.getMessage().contains("ermission denied"));
    return new ConfigError(
        top
            + ": include "
            + OneLine.of(what)
            + (missing
                ? ": not found (a path is relative to the including file; blksim reads every"
                    + " include, found or refused)"
                : ": cannot read it" + Scenario.reason(e.getCause())));
  }
}

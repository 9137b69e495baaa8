package blksim.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The layers of a run's configuration, lowest first: {@code reference.conf}, then each layer added,
 * a later one overriding an earlier one. Every layer is checked when it is added: a key that {@code
 * reference.conf} does not know is an error that names the key, where it was written, and the
 * nearest known key.
 */
public final class Scenario {
  private final Config reference = ConfigFactory.defaultReference();
  private Config layers = ConfigFactory.empty();

  /** Adds a HOCON scenario file. */
  public Scenario file(Path path) {
    readable(path, OneLine.of(path.toString()), "scenario file");
    return layer(parseFile(path));
  }

  /**
   * Adds a file of patches described as data ({@code --patch-file}): {@code patches.NAME { ... }}
   * at its top (or {@code blksim.patches.NAME}), nothing else (docs/your-patch.md).
   */
  public Scenario patchFile(Path path) {
    readable(path, OneLine.of(path.toString()), "patch file");
    Config file = parseFile(path);
    Config patches = ConfigFactory.empty();
    for (String key : new java.util.TreeSet<>(file.root().keySet())) {
      boolean object = file.getValue(key).valueType() == com.typesafe.config.ConfigValueType.OBJECT;
      if (key.equals("patches") && !object) {
        throw new ConfigError(
            OneLine.of(path.toString())
                + ": patches is not an object: expected patches.NAME { ... }");
      }
      if (key.equals("patches")) {
        patches = patches.withFallback(file.getConfig("patches").atPath("blksim.patches"));
      } else if (key.equals("blksim")
          && object
          && file.getConfig("blksim").root().keySet().equals(Set.of("patches"))
          && file.getValue("blksim.patches").valueType()
              == com.typesafe.config.ConfigValueType.OBJECT) {
        patches = patches.withFallback(file.withOnlyPath("blksim.patches"));
      } else {
        throw new ConfigError(
            OneLine.of(path.toString())
                + ": a patch file holds patches.NAME { ... } only, not "
                + OneLine.of(key)
                + " (settings go in a scenario file or --set)");
      }
    }
    if (patches.isEmpty()) {
      throw new ConfigError(
          OneLine.of(path.toString()) + ": no patches in it: expected patches.NAME { ... }");
    }
    return layer(patches);
  }

  /**
   * Adds a profile file ({@code --profile-file}, as {@code blksim profile import} writes one) under
   * the layers so far: it may define profiles ({@code blksim.profiles.NAME}) and nothing else, so
   * that what the user sets wins and a profile file never changes a run's other settings
   * (docs/your-box.md).
   */
  public Scenario profileFile(Path path) {
    String where = OneLine.of(path.toString());
    if (!Files.isRegularFile(path)) {
      throw new ConfigError(
          "--profile-file "
              + where
              + ": no such file (give a file that blksim profile import wrote)");
    }
    Config layer = parseFile(path);
    Set<String> keys = new java.util.TreeSet<>();
    for (Map.Entry<String, ConfigValue> e : layer.entrySet()) {
      keys.add(e.getKey());
    }
    if (keys.isEmpty()) {
      throw new ConfigError(
          "--profile-file "
              + where
              + ": defines no profile (expected blksim.profiles.NAME { ... })");
    }
    for (String key : keys) {
      if (!key.startsWith("blksim.profiles.")) {
        throw new ConfigError(
            "--profile-file "
                + where
                + ": sets "
                + OneLine.of(OneLine.clipped(key))
                + "; a profile file holds blksim.profiles.NAME { ... } only (run settings go in"
                + " --set or a scenario file)");
      }
    }
    checked(layer);
    layers = layers.withFallback(layer);
    return this;
  }

  /** Adds one {@code --set path=value} override; {@code blksim.} may be left out of the path. */
  public Scenario set(String assignment) {
    return set(assignment, "--set");
  }

  /**
   * Adds one override given by {@code option} ({@code --set}, {@code --a-set}, {@code --b-set}),
   * which its messages name.
   */
  public Scenario set(String assignment, String option) {
    int eq = assignment.indexOf('=');
    if (eq <= 0) {
      throw new ConfigError(
          option
              + " "
              + OneLine.quoted(OneLine.clipped(assignment))
              + ": expected path=value, e.g. "
              + option
              + " blksim.io-uring.depth=64");
    }
    String path = assignment.substring(0, eq).trim();
    if (!path.startsWith("blksim.") && !path.startsWith("akka.")) {
      path = "blksim." + path;
    }
    String origin = option + " " + OneLine.clipped(assignment);
    Config layer = parse(path + " = " + assignment.substring(eq + 1), origin);
    for (Map.Entry<String, ConfigValue> e : layer.entrySet()) {
      if (!e.getKey().equals(path) && !e.getKey().startsWith(path + ".")) {
        throw new ConfigError(
            OneLine.of(origin)
                + ": sets "
                + OneLine.of(e.getKey())
                + " too: one "
                + option
                + " sets one key (give each its own "
                + option
                + ")");
      }
    }
    return layer(layer);
  }

  /**
   * Adds null_blk module parameters in modprobe syntax ({@code "submit_queues=1 poll_queues=1"}).
   */
  public Scenario nullBlk(String modprobeParams) {
    return layer(NullBlkParams.parse(modprobeParams));
  }

  /** Adds settings given as {@code path -> value} (values as HOCON would read them). */
  public Scenario values(Map<String, Object> values, String origin) {
    return layer(ConfigFactory.parseMap(values, origin));
  }

  /**
   * Sets {@code path} to {@code value} when a command-line option gave one ({@code value} not
   * null), naming the option as the origin.
   */
  public Scenario option(String path, Object value, String option) {
    return value == null ? this : values(Map.of(path, value), option);
  }

  /** Adds a layer of HOCON text. */
  public Scenario hocon(String text, String origin) {
    return layer(parse(text, origin));
  }

  private static Config parse(String text, String origin) {
    String what = OneLine.of(origin);
    return shallow(
        guarded(
            what,
            () ->
                ConfigFactory.parseString(
                    text, ConfigParseOptions.defaults().setOriginDescription(origin))),
        what);
  }

  /**
   * How deep a layer may nest: objects, lists and the parts of a dotted path each count a level.
   * {@code reference.conf} nests 7 deep; the limit is checked on what was read, so that input is
   * refused or taken the same way on every run, whether or not the JIT has compiled the parser yet
   * (an interpreted parser overflows the stack some thousand levels down, a compiled one further).
   */
  static final int MAX_DEPTH = 100;

  private static Config shallow(Config layer, String what) {
    java.util.ArrayDeque<ConfigValue> level = new java.util.ArrayDeque<>(List.of(layer.root()));
    for (int depth = 0; !level.isEmpty(); depth++) {
      if (depth > MAX_DEPTH) {
        throw new ConfigError(what + ": " + TOO_DEEP);
      }
      java.util.ArrayDeque<ConfigValue> next = new java.util.ArrayDeque<>();
      for (ConfigValue v : level) {
        if (v instanceof com.typesafe.config.ConfigObject) {
          next.addAll(((com.typesafe.config.ConfigObject) v).values());
        } else if (v instanceof com.typesafe.config.ConfigList) {
          next.addAll((com.typesafe.config.ConfigList) v);
        }
      }
      level = next;
    }
    return layer;
  }

  private static final String TOO_DEEP =
      "nested too deeply to read (HOCON objects, lists or dotted paths more than "
          + MAX_DEPTH
          + " levels deep)";

  /**
   * {@code work} with Typesafe Config's failures as one line each; a value nested so deep that
   * reading it overflows the stack is refused, not a trace.
   */
  private static <T> T guarded(String what, java.util.function.Supplier<T> work) {
    try {
      return work.get();
    } catch (ConfigException e) {
      throw new ConfigError(OneLine.of(ConfigNames.oneLine(e)));
    } catch (StackOverflowError e) {
      throw new ConfigError(what + ": " + TOO_DEEP);
    }
  }

  /**
   * The layers over {@code reference.conf}, resolved, with the chosen profile's {@code setup}
   * between the two: a profile describes the box it was measured on, and what the user sets wins.
   */
  public Config resolved() {
    return guarded(
        "the configuration",
        () -> {
          Config plain = layers.withFallback(reference).resolve();
          Config setup = CpuProfile.setupLayer(plain, plain.getString("blksim.cpu.profile"));
          checkKnownKeys(setup);
          return layers.withFallback(setup).withFallback(reference).resolve();
        });
  }

  /**
   * Adds {@code patches} to those the layers so far list; {@code no-NAME} takes the preset's away.
   */
  public Scenario addPatches(List<String> patches) {
    Config resolved = resolved();
    Set<String> all = new LinkedHashSet<>(resolved.getStringList("blksim.kernel.patches"));
    for (String p : patches) {
      String name = p.trim();
      boolean off = name.startsWith("no-");
      String key = off ? name.substring(3) : name;
      if (!resolved.hasPath(PatchData.path(key))) {
        Patch.of(key);
      }
      all.add((off ? "no-" : "") + key);
    }
    return values(Map.of("blksim.kernel.patches", List.copyOf(all)), "--patch");
  }

  /** The typed settings of the layers so far. */
  public BlksimSettings settings() {
    Config resolved = resolved();
    return guarded("the configuration", () -> BlksimSettings.from(resolved));
  }

  private Scenario layer(Config layer) {
    layers = checked(layer).withFallback(layers);
    return this;
  }

  /** {@code layer}, once every key of it is one that reference.conf knows. */
  private Config checked(Config layer) {
    return guarded(
        "the configuration",
        () -> {
          checkKnownKeys(layer);
          return layer;
        });
  }

  /**
   * A HOCON file of another kind ({@code what}, e.g. "sweep file"), parsed as a scenario file is: a
   * missing, unreadable or malformed file is one line naming it.
   */
  public static Config readFile(Path path, String what) {
    readable(path, OneLine.of(path.toString()), what);
    return parseFile(path);
  }

  /** A HOCON file, parsed; its syntax errors as one line naming it. */
  private static Config parseFile(Path path) {
    String where = OneLine.of(path.toString());
    try {
      return shallow(guarded(where, () -> parseStrictly(path, where)), where);
    } catch (ConfigException.IO e) {
      throw new ConfigError(where + ": cannot read it" + reason(e.getCause()));
    }
  }

  private static Config parseStrictly(Path path, String where) {
    // an absolute path, so that an include is found beside the file even when it was given as a
    // bare name (a relative path has no parent to look in); the origin stays as the user wrote it
    return ConfigFactory.parseFile(
        path.toAbsolutePath().toFile(),
        ConfigParseOptions.defaults()
            .setOriginDescription(path.toString())
            .setSyntax(ConfigSyntax.CONF)
            .setAllowMissing(false)
            .setIncluder(new StrictIncluder(where)));
  }

  /** Why a file could not be read, in words, without Java's class names; "" if unknown. */
  static String reason(Throwable cause) {
    if (cause instanceof java.nio.file.AccessDeniedException) {
      return ": permission denied";
    }
    String m = cause == null ? null : cause.getMessage();
    if (m == null) {
      return "";
    }
    // FileNotFoundException's message is "PATH (Permission denied)": keep the reason only
    int open = m.lastIndexOf(" (");
    return ": "
        + OneLine.of(open >= 0 && m.endsWith(")") ? m.substring(open + 2, m.length() - 1) : m)
            .toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Checks that {@code path} is a file that can be read, else one line that says what it is.
   *
   * @param what the kind of file, e.g. "scenario file"
   */
  private static void readable(Path path, String where, String what) {
    if (Files.isDirectory(path)) {
      throw new ConfigError(where + ": a directory, not a " + what);
    }
    if (Files.exists(path) && !Files.isRegularFile(path)) {
      throw new ConfigError(
          where + ": not a regular file (a device, pipe or socket); a " + what + " is a text file");
    }
    if (!Files.exists(path)) {
      throw new ConfigError(where + ": no such " + what);
    }
    if (!Files.isReadable(path)) {
      throw new ConfigError(where + ": cannot read it: permission denied");
    }
  }

  private void checkKnownKeys(Config layer) {
    Map<String, ConfigValue> sorted = new TreeMap<>();
    for (Map.Entry<String, ConfigValue> entry : layer.entrySet()) {
      sorted.put(entry.getKey(), entry.getValue());
    }
    for (Map.Entry<String, ConfigValue> entry : sorted.entrySet()) {
      String key = entry.getKey();
      String origin = OneLine.of(entry.getValue().origin().description());
      if (key.startsWith("akka.")) {
        throw new ConfigError(
            origin
                + ": "
                + OneLine.of(key)
                + " is not read: blksim sets Akka up itself; the engine's knobs are under"
                + " blksim.engine");
      }
      if (key.startsWith("blksim.profiles.")
          || key.startsWith("blksim.patches.")
          || reference.hasPathOrNull(key)) {
        continue;
      }
      String near = KeySuggestion.nearest(key, reference);
      throw new ConfigError(
          origin
              + ": unknown key "
              + OneLine.of(key)
              + (near == null
                  ? " (blksim reads the keys of its reference.conf under blksim.*)"
                  : " (did you mean " + near + "?)"));
    }
  }
}

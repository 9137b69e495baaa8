package blksim.config;

import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValueType;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A patch described as data ({@code blksim.patches.NAME}): what it changes in the work of the
 * path's functions, and the functions it adds, each in {@link WorkUnit}s that the profile's facts
 * price (docs/your-patch.md). A built-in patch whose effect is only a price ({@link
 * Patch#pricedByData()}) is one of these in {@code reference.conf}; a user's comes from a scenario
 * file or {@code --patch-file}.
 *
 * @param changes the work each call of a function gains or loses, by the function's name
 * @param adds functions the patch adds, by name
 * @param with the changes that replace or add to {@code changes} when the patch named by the key is
 *     in effect too (a later patch of a series, measured on top of an earlier one)
 */
public record PatchData(
    String name,
    String description,
    String source,
    Map<String, Work> changes,
    Map<String, Added> adds,
    Map<String, Map<String, Work>> with) {

  /** The most functions one patch may add, and a run may carry; ids are kept in fixed arrays. */
  public static final int MAX_ADDED = 32;

  /** The most calls of an added function per call of its caller. */
  static final int MAX_PER_CALL = 1000;

  private static final Set<String> KEYS =
      Set.of("description", "source", "changes", "adds", "with");
  private static final Set<String> ADD_KEYS = Set.of("called-from", "per-call");

  /**
   * A function the patch adds: it runs {@code perCall} times at each call of {@code calledFrom}, on
   * that CPU, for that CPU time, each call doing {@code work}.
   */
  public record Added(String calledFrom, int perCall, Work work) {}

  public PatchData {
    changes = Collections.unmodifiableMap(new TreeMap<>(changes));
    adds = Collections.unmodifiableMap(new TreeMap<>(adds));
    TreeMap<String, Map<String, Work>> w = new TreeMap<>();
    with.forEach((k, v) -> w.put(k, Collections.unmodifiableMap(new TreeMap<>(v))));
    with = Collections.unmodifiableMap(w);
  }

  /** The path of patch {@code name} in the configuration. */
  static String path(String name) {
    return "blksim.patches." + ConfigUtil.quoteString(name);
  }

  /** The patch at {@code blksim.patches.NAME}; its names of functions are checked where priced. */
  static PatchData from(SettingsReader r, String name) {
    String path = path(name);
    String shown = "blksim.patches." + OneLine.of(name);
    if (r.config().getValue(path).valueType() != ConfigValueType.OBJECT) {
      throw new ConfigError(
          r.where(path)
              + shown
              + " is not a patch: expected { description, source, changes { FUNCTION { UNIT ="
              + " count } }, adds { FUNCTION { called-from, per-call, UNIT = count } }, with {"
              + " PATCH { FUNCTION { UNIT = count } } } }");
    }
    for (String key : new TreeSet<>(r.config().getObject(path).keySet())) {
      if (!KEYS.contains(key)) {
        throw new ConfigError(
            r.where(path + "." + ConfigUtil.quoteString(key))
                + shown
                + "."
                + OneLine.of(key)
                + " is not a patch key: accepted "
                + String.join(", ", new TreeSet<>(KEYS)));
      }
    }
    String description = optionalString(r, path + ".description", shown + ".description");
    String source = optionalString(r, path + ".source", shown + ".source");
    Map<String, Work> changes = functions(r, path + ".changes", shown + ".changes");
    Map<String, Added> adds = new TreeMap<>();
    if (r.config().hasPath(path + ".adds")) {
      for (String fn : objectKeys(r, path + ".adds", shown + ".adds")) {
        String at = path + ".adds." + ConfigUtil.quoteString(fn);
        Work work = Work.from(r, at, ADD_KEYS);
        if (!r.config().hasPath(at + ".called-from")) {
          throw new ConfigError(
              r.where(at)
                  + shown
                  + ".adds."
                  + OneLine.of(fn)
                  + " has no called-from: name the function of the path that calls it");
        }
        String caller = optionalString(r, at + ".called-from", shown + ".adds." + fn);
        int perCall =
            r.config().hasPath(at + ".per-call") ? r.intIn(at + ".per-call", 1, MAX_PER_CALL) : 1;
        adds.put(fn, new Added(caller, perCall, work));
      }
      if (adds.size() > MAX_ADDED) {
        throw new ConfigError(
            shown + ".adds names " + adds.size() + " functions: at most " + MAX_ADDED);
      }
    }
    Map<String, Map<String, Work>> with = new TreeMap<>();
    if (r.config().hasPath(path + ".with")) {
      for (String other : objectKeys(r, path + ".with", shown + ".with")) {
        String at = path + ".with." + ConfigUtil.quoteString(other);
        with.put(other, functions(r, at, shown + ".with." + other));
      }
    }
    if (changes.isEmpty() && adds.isEmpty()) {
      throw new ConfigError(
          r.where(path)
              + shown
              + " changes nothing: give changes { FUNCTION { UNIT = count } } or adds { ... }");
    }
    return new PatchData(name, description, source, changes, adds, with);
  }

  private static Map<String, Work> functions(SettingsReader r, String path, String shown) {
    Map<String, Work> out = new TreeMap<>();
    if (!r.config().hasPath(path)) {
      return out;
    }
    for (String fn : objectKeys(r, path, shown)) {
      out.put(fn, Work.from(r, path + "." + ConfigUtil.quoteString(fn), Set.of()));
    }
    return out;
  }

  private static Set<String> objectKeys(SettingsReader r, String path, String shown) {
    if (r.config().getValue(path).valueType() != ConfigValueType.OBJECT) {
      throw new ConfigError(
          r.where(path) + shown + " is not an object: expected { FUNCTION { UNIT = count } }");
    }
    return new TreeSet<>(r.config().getObject(path).keySet());
  }

  private static String optionalString(SettingsReader r, String path, String shown) {
    if (!r.config().hasPath(path)) {
      return "";
    }
    if (r.config().getValue(path).valueType() != ConfigValueType.STRING) {
      throw new ConfigError(r.where(path) + shown + " is not a string");
    }
    return r.config().getString(path);
  }
}

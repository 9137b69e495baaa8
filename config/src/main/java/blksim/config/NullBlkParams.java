package blksim.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * null_blk module parameters in modprobe syntax ({@code "submit_queues=2 poll_queues=2"}), turned
 * into a layer of {@code blksim.null-blk.*} settings.
 *
 * <p>Names are the kernel's (drivers/block/null_blk/main.c); as with modprobe, {@code -} and {@code
 * _} are interchangeable and a {@code null_blk.} prefix is allowed. Every parameter of the real
 * module is known: one the model does not read yet is refused by name rather than ignored.
 */
public final class NullBlkParams {
  private NullBlkParams() {}

  private enum Kind {
    INT,
    BOOL,
    STRING
  }

  /** The parameters the model reads. */
  private static final Map<String, Kind> MODELLED = new LinkedHashMap<>();

  static {
    MODELLED.put("queue_mode", Kind.INT);
    MODELLED.put("submit_queues", Kind.INT);
    MODELLED.put("poll_queues", Kind.INT);
    MODELLED.put("hw_queue_depth", Kind.INT);
    MODELLED.put("irqmode", Kind.INT);
    MODELLED.put("completion_nsec", Kind.INT);
    MODELLED.put("bs", Kind.INT);
    MODELLED.put("gb", Kind.INT);
    MODELLED.put("nr_devices", Kind.INT);
    MODELLED.put("no_sched", Kind.BOOL);
    MODELLED.put("home_node", Kind.INT);
    MODELLED.put("requeue", Kind.STRING);
    MODELLED.put("timeout", Kind.STRING);
  }

  /** Parameters of the real module that the model does not read yet. */
  private static final List<String> NOT_MODELLED =
      List.of(
          "max_sectors",
          "blocking",
          "shared_tags",
          "shared_tag_bitmap",
          "use_per_node_hctx",
          "memory_backed",
          "discard",
          "cache_size",
          "mbps",
          "fua",
          "zoned",
          "zone_size",
          "zone_capacity",
          "zone_nr_conv",
          "zone_max_open",
          "zone_max_active",
          "zone_append_max_sectors",
          "zone_full",
          "virt_boundary",
          "rotational",
          "init_hctx");

  /** Parses modprobe-style parameters into a layer of {@code blksim.null-blk.*} keys. */
  public static Config parse(String params) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (String token : params.trim().split("\\s+")) {
      if (token.isEmpty()) {
        continue;
      }
      int eq = token.indexOf('=');
      String name = (eq < 0 ? token : token.substring(0, eq)).replace('-', '_');
      if (name.startsWith("null_blk.")) {
        name = name.substring("null_blk.".length());
      }
      name = OneLine.clipped(name);
      Kind kind = MODELLED.get(name);
      if (kind == null) {
        if (NOT_MODELLED.contains(name)) {
          throw new ConfigError(
              "null_blk: "
                  + name
                  + " is a null_blk parameter that blksim does not model yet"
                  + " (modelled: "
                  + String.join(" ", MODELLED.keySet())
                  + ")");
        }
        throw new ConfigError(
            "null_blk: unknown parameter "
                + name
                + " (modelled: "
                + String.join(" ", MODELLED.keySet())
                + ")");
      }
      if (eq < 0 && kind != Kind.BOOL) {
        // kernel/params.c parse_one: only a bool takes no value; anything else is -EINVAL
        throw new ConfigError(
            "null_blk: "
                + name
                + " needs a value (the kernel answers -EINVAL): e.g. "
                + name
                + "="
                + (kind == Kind.INT
                    ? ConfigFactory.defaultReference()
                        .getValue("blksim.null-blk." + name.replace('_', '-'))
                        .render()
                    : "1,10,0,-1"));
      }
      String value = eq < 0 ? "1" : token.substring(eq + 1);
      values.put(
          "blksim.null-blk." + name.replace('_', '-'),
          switch (kind) {
            case INT -> integer(name, value);
            case BOOL -> bool(name, value);
            case STRING -> value;
          });
    }
    return ConfigFactory.parseMap(values, "--null-blk");
  }

  /**
   * What kstrtoint with base 0 reads: a sign, then ASCII decimal, 0x hex or 0 octal digits (Java's
   * decode would also take other scripts' digits, and a {@code #} for hex).
   */
  private static final java.util.regex.Pattern KSTRTOINT =
      java.util.regex.Pattern.compile("[+-]?(0[xX][0-9a-fA-F]+|[0-9]+)");

  private static Long integer(String name, String value) {
    if (!KSTRTOINT.matcher(value).matches()) {
      throw new ConfigError(
          "null_blk: "
              + name
              + "="
              + OneLine.clipped(value)
              + " is not an integer: accepted ASCII digits, decimal, 0x hex or 0 octal, as"
              + " kstrtoint reads them");
    }
    try {
      return Long.decode(value);
    } catch (NumberFormatException e) {
      throw new ConfigError(
          "null_blk: " + name + "=" + OneLine.clipped(value) + " is not an integer");
    }
  }

  private static Boolean bool(String name, String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case "1":
      case "y":
      case "yes":
      case "on":
      case "true":
        return true;
      case "0":
      case "n":
      case "no":
      case "off":
      case "false":
        return false;
      default:
        throw new ConfigError(
            "null_blk: "
                + name
                + "="
                + OneLine.clipped(value)
                + " is not a boolean: accepted 0, 1, y, n");
    }
  }
}

package blksim.loadgen.sweep;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import java.util.ArrayList;
import java.util.List;

/**
 * One axis of a sweep: a name and its values, each turned into the arguments it adds to the base
 * command line. The name is a flag of the base command ({@code -d}, {@code --seed}), one of the
 * named axes ({@link Named}), or a settings path ({@code io-uring.depth}, {@code blksim.} may be
 * left out) given as {@code --set}.
 */
public final class Axis {
  /** The axes that are not a flag or a path, and what each becomes. */
  public enum Named {
    /** {@code --cpus N}, N submitter threads (-nN), and one submit and one poll hctx each. */
    CPUS("cpus"),
    /** {@code --patch LIST} on top of the base's patches; "" for none. */
    PATCHES("patches"),
    /** {@code --profile NAME}. */
    PROFILE("profile"),
    /** {@code --kernel NAME}. */
    KERNEL("kernel"),
    /** {@code --null-blk "PARAMS"}, modprobe's syntax, over the base's. */
    NULL_BLK("null-blk"),
    /** {@code --seed N}. */
    SEED("seed");

    final String key;

    Named(String key) {
      this.key = key;
    }

    static Named of(String name) {
      for (Named n : values()) {
        if (n.key.equals(name)) {
          return n;
        }
      }
      return null;
    }

    static String names() {
      List<String> all = new ArrayList<>();
      for (Named n : values()) {
        all.add(n.key);
      }
      return String.join(", ", all);
    }
  }

  /** What the base command accepts: its options, and which of them may be given again. */
  public interface Options {
    /** The base command's name, for messages: io_uring or run. */
    String command();

    boolean has(String option);

    /** Whether {@code option} adds to earlier ones (--set, --patch) rather than replacing them. */
    boolean repeatable(String option);

    /** Its options, for the line that refuses another. */
    String listed();
  }

  private final String name;
  private final List<String> values;

  Axis(String name, List<String> values) {
    this.name = name;
    this.values = List.copyOf(values);
  }

  public String name() {
    return name;
  }

  public List<String> values() {
    return values;
  }

  /**
   * The flag or named axis behind {@code name}, checked against the base command, or an error
   * naming what is accepted.
   */
  static void check(String where, String name, Options base) {
    if (name.startsWith("-")) {
      if (!base.has(name)) {
        throw new ConfigError(
            where
                + ": axis "
                + OneLine.quoted(OneLine.clipped(name))
                + " is not an option of the base command "
                + base.command()
                + " ("
                + base.listed()
                + ")");
      }
      if (name.equals("--out") || name.equals("--json") || name.equals("--csv")) {
        throw new ConfigError(
            where + ": axis " + name + ": a sweep writes each point's files itself (--out DIR)");
      }
      return;
    }
    if (Named.of(name) != null || name.contains(".")) {
      return;
    }
    throw new ConfigError(
        where
            + ": axis "
            + OneLine.quoted(OneLine.clipped(name))
            + " is not one blksim knows: give a flag of the base command (e.g. \"-d\"), one of "
            + Named.names()
            + ", or a settings path such as io-uring.depth");
  }

  /** {@code args} with this axis at {@code value}: a flag replaced or added, a setting added. */
  List<String> apply(List<String> args, String value, Options base) {
    Named named = Named.of(name);
    if (name.startsWith("-")) {
      return option(args, name, value, base);
    }
    if (named == null) {
      return added(args, "--set", name + "=" + value);
    }
    return switch (named) {
      case CPUS -> cpus(args, value, base);
      case PATCHES -> value.isEmpty() ? args : added(args, "--patch", value);
      case PROFILE -> replaced(args, "--profile", value);
      case KERNEL -> replaced(args, "--kernel", value);
      case NULL_BLK -> added(args, "--null-blk", value);
      case SEED -> replaced(args, "--seed", value);
    };
  }

  /** N CPUs: as many submitter threads, and one submit and one poll hardware queue each. */
  private static List<String> cpus(List<String> args, String n, Options base) {
    List<String> a = replaced(args, "--cpus", n);
    a = base.has("-n") ? replaced(a, "-n", n) : added(a, "--set", "io-uring.threads=" + n);
    return added(a, "--null-blk", "submit_queues=" + n + " poll_queues=" + n);
  }

  private static List<String> option(List<String> args, String flag, String value, Options base) {
    return base.repeatable(flag) ? added(args, flag, value) : replaced(args, flag, value);
  }

  /** {@code args} without any {@code flag} of theirs, and with {@code flag value} added. */
  static List<String> replaced(List<String> args, String flag, String value) {
    List<String> out = new ArrayList<>();
    int end = args.indexOf("--");
    int stop = end < 0 ? args.size() : end;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (i < stop && i > 0) {
        if (a.equals(flag)) {
          i++; // and its value
          continue;
        }
        boolean attached =
            flag.startsWith("--") ? a.startsWith(flag + "=") : a.startsWith(flag) && a.length() > 2;
        if (attached) {
          continue;
        }
      }
      out.add(a);
    }
    return added(out, flag, value);
  }

  /** {@code args} with {@code flag value} added before the end of the options. */
  static List<String> added(List<String> args, String flag, String value) {
    List<String> out = new ArrayList<>(args);
    int end = out.indexOf("--");
    int at = end < 0 ? out.size() : end;
    out.add(at, value);
    out.add(at, flag);
    return out;
  }
}

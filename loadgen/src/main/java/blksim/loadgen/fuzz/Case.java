package blksim.loadgen.fuzz;

import blksim.config.ConfigError;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * One generated scenario: a {@code blksim io_uring} command line kept as its parts, so that the
 * shrinker can drop or lower one part at a time and the result is still a command a person can
 * paste.
 *
 * @param options the options in the order they are printed; see {@link Opt} for how each is written
 * @param files the devices t/io_uring reads, the positional arguments at the end
 * @param pinned names of options the shrinker must keep: the runtime, and settings given to every
 *     case (a fault planted with {@code blksim fuzz --set books.break=leak-bio})
 */
public record Case(List<Opt> options, List<String> files, Set<String> pinned) {

  /** The option that bounds a run's virtual time; the shrinker lowers it but never drops it. */
  public static final String RUNTIME = "set:run.runtime";

  /**
   * One option of the command line.
   *
   * <ul>
   *   <li>{@code -d} and the other t/io_uring flags: written as t/io_uring takes them, {@code
   *       -d32};
   *   <li>{@code nb:submit_queues}: one null_blk module parameter; all of them are gathered into
   *       one {@code --null-blk 'submit_queues=2 poll_queues=2'};
   *   <li>{@code set:run.runtime}: one {@code --set run.runtime=200us};
   *   <li>{@code dm:0}: the table of /dev/dm-0, one {@code --dm-table '0 2097152 linear /dev/nullb0
   *       0'}; tables are written in the order of their numbers;
   *   <li>{@code --cpus} and the other long options: the name, then the value as its own word.
   * </ul>
   */
  public record Opt(String name, String value) {}

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./,=:+-]+");

  public Case {
    options = List.copyOf(options);
    files = List.copyOf(files);
    pinned = Set.copyOf(pinned);
  }

  /** A case whose only pinned option is the runtime. */
  public Case(List<Opt> options, List<String> files) {
    this(options, files, Set.of(RUNTIME));
  }

  /** Whether the shrinker must keep option {@code name}. */
  public boolean isPinned(String name) {
    return pinned.contains(name);
  }

  /** The case's virtual runtime in microseconds (a HOCON duration, as {@code --set} takes it). */
  public long runtimeUs() {
    String v = get(RUNTIME);
    if (v == null) {
      return 1_000_000;
    }
    try {
      return ConfigFactory.parseString("d = " + v).getDuration("d", TimeUnit.MICROSECONDS);
    } catch (ConfigException e) {
      throw new ConfigError("run.runtime = " + v + ": not a duration, e.g. 200us or 1ms");
    }
  }

  /** This case with {@code name = value} added and pinned. */
  public Case pin(String name, String value) {
    Case c = with(name, value);
    Set<String> p = new java.util.HashSet<>(pinned);
    p.add(name);
    return new Case(c.options, c.files, p);
  }

  /** The value of option {@code name}, or null when the case does not give it. */
  public String get(String name) {
    for (Opt o : options) {
      if (o.name().equals(name)) {
        return o.value();
      }
    }
    return null;
  }

  /** This case with option {@code name} set to {@code value} (added at the end if absent). */
  public Case with(String name, String value) {
    List<Opt> next = new ArrayList<>();
    boolean replaced = false;
    for (Opt o : options) {
      if (o.name().equals(name)) {
        next.add(new Opt(name, value));
        replaced = true;
      } else {
        next.add(o);
      }
    }
    if (!replaced) {
      next.add(new Opt(name, value));
    }
    return new Case(next, files, pinned);
  }

  /** This case without option {@code name}. */
  public Case without(String name) {
    List<Opt> next = new ArrayList<>(options);
    next.removeIf(o -> o.name().equals(name));
    return new Case(next, files, pinned);
  }

  /** This case reading {@code newFiles} instead. */
  public Case withFiles(List<String> newFiles) {
    return new Case(options, newFiles, pinned);
  }

  /** The arguments after {@code blksim}: {@code io_uring}, the options, the files. */
  public List<String> args() {
    List<String> a = new ArrayList<>();
    a.add("io_uring");
    List<String> nullBlk = new ArrayList<>();
    for (Opt o : options) {
      if (o.name().startsWith("nb:")) {
        nullBlk.add(o.name().substring(3) + "=" + o.value());
      } else if (o.name().startsWith("set:")) {
        a.add("--set");
        a.add(o.name().substring(4) + "=" + o.value());
      } else if (o.name().startsWith("dm:")) {
        a.add("--dm-table");
        a.add(o.value());
      } else if (o.name().startsWith("--")) {
        a.add(o.name());
        a.add(o.value());
      } else {
        a.add(o.name() + o.value());
      }
    }
    if (!nullBlk.isEmpty()) {
      a.add("--null-blk");
      a.add(String.join(" ", nullBlk));
    }
    a.addAll(files);
    return a;
  }

  /**
   * The case as a shell command a person can paste: {@code blksim io_uring -d32 ... /dev/nullb0}.
   */
  public String commandLine() {
    StringBuilder b = new StringBuilder("blksim");
    for (String arg : args()) {
      b.append(' ')
          .append(PLAIN.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'");
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return commandLine();
  }
}

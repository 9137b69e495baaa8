package blksim.loadgen.sweep;

import java.util.List;

/**
 * One point of a sweep: its place, its value on each axis, and the command line that runs it alone
 * ({@code blksim} followed by {@code args}).
 */
public record Point(int index, List<String> values, List<String> args) {
  public Point {
    values = List.copyOf(values);
    args = List.copyOf(args);
  }

  /** The command line, as a shell would take it back: words with spaces or quotes quoted. */
  public String commandLine() {
    StringBuilder b = new StringBuilder("blksim");
    for (String a : args) {
      b.append(' ');
      b.append(a.matches("[A-Za-z0-9._,/=:+@%-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
    }
    return b.toString();
  }
}

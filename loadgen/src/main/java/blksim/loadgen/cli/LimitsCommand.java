package blksim.loadgen.cli;

import blksim.config.Limit;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code blksim limits}: every kind of run that blksim refuses as not modelled yet, by area, one
 * line each: its id and what it refuses (docs/limits.md holds the same list).
 */
@Command(
    name = "limits",
    description = "List what blksim refuses as not modelled yet, by area (docs/limits.md).")
public final class LimitsCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  private final PrintStream out;

  LimitsCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    lines().forEach(out::println);
    out.flush();
    return 0;
  }

  /**
   * The list as {@code blksim limits} prints it: each area's heading, then its limits indented by
   * two spaces, their ids in one column.
   */
  public static List<String> lines() {
    int width = 0;
    for (Limit l : Limit.values()) {
      width = Math.max(width, l.id().length());
    }
    List<String> lines = new ArrayList<>();
    for (Limit.Area area : Limit.Area.values()) {
      lines.add(area.heading());
      for (Limit l : Limit.values()) {
        if (l.area() == area) {
          lines.add("  " + l.id() + " ".repeat(width - l.id().length() + 2) + l.description());
        }
      }
    }
    return lines;
  }
}

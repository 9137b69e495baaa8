package blksim.loadgen.cli;

import blksim.config.ConfigError;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code blksim profile import|diff}: a box's perf output into blksim (docs/your-box.md). */
@Command(
    name = "profile",
    description = {
      "A box's perf output into blksim (docs/your-box.md):",
      "  import  a perf report and its IOPS into a profile file",
      "  diff    which steps a perf diff's deltas fall on"
    })
final class ProfileCommand implements Callable<Integer> {
  @Mixin HelpOption help = new HelpOption();

  @Override
  public Integer call() {
    throw new ConfigError(
        "blksim profile: give import (--perf FILE --iops N --name NAME) or diff (--perf-diff FILE)");
  }
}

package blksim.loadgen.fuzz;

import java.util.List;

/** A build of blksim that runs command lines: this one in this JVM, or another commit's jar. */
public interface Build {
  /** Runs {@code blksim args}; never throws for what the run does. */
  Outcome run(List<String> args);

  /** How a summary names this build. */
  String name();
}

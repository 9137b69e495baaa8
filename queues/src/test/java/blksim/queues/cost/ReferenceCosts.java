package blksim.queues.cost;

import blksim.config.BlksimSettings;
import blksim.config.KernelSettings;
import java.util.Set;

/**
 * The prices the model tests run against: the default profile, no kernel preset or patch, and the
 * knobs of the default run ({@code -B1 -F1 -R1}).
 */
public final class ReferenceCosts {
  private ReferenceCosts() {}

  public static PathCosts of() {
    return PathCosts.of(
        BlksimSettings.defaults().profile(),
        new KernelSettings("", Set.of(), false),
        new PathCosts.Knobs(true, true, true));
  }
}

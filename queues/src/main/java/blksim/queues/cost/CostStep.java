package blksim.queues.cost;

import blksim.config.CostProfile;

/**
 * One priced step of the I/O path: its name in the profile and the ledger, and its cost.
 *
 * @param name the kernel function (or step) it models
 * @param ps CPU time per call, in picoseconds
 */
public record CostStep(String name, long ps) {
  /** The step {@code name} priced by {@code profile}. */
  public static CostStep of(CostProfile profile, String name) {
    return new CostStep(name, profile.ps(name));
  }
}

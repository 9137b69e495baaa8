package blksim.queues.cost;

/**
 * One priced step of the I/O path: its name in the profile and the ledger, and its cost.
 *
 * @param id the kernel function (or contention) it models
 * @param ps CPU time per call, in picoseconds
 */
public record CostStep(CostId id, long ps) {
  /** The name in profiles and reports. */
  public String name() {
    return id.symbol();
  }
}

package blksim.queues.cost;

/**
 * One priced step of the I/O path: its name in the profile and the ledger, and its cost.
 *
 * @param name the kernel function (or step) it models
 * @param ps CPU time per call, in picoseconds
 */
public record CostStep(String name, long ps) {}

package blksim.queues.cost;

/**
 * What a charge of CPU time is for, as the ledger and the profile name it: a kernel function
 * ({@link KernelFn}) or time that contention adds ({@link Contention}). Every id has a dense index,
 * so that a ledger keeps its entries in arrays.
 */
public sealed interface CostId permits KernelFn, Contention {
  /** The name in profiles and reports. */
  String symbol();

  /** The name on {@code kernel}, for what was renamed between versions. */
  default String symbol(blksim.config.KernelSettings kernel) {
    return symbol();
  }

  /** A dense index over every id: kernel functions first, then contention. */
  int index();

  /** How many ids there are. */
  static int count() {
    return KernelFn.values().length + Contention.values().length;
  }

  /** The id of {@code index}. */
  static CostId of(int index) {
    int fns = KernelFn.values().length;
    return index < fns ? KernelFn.values()[index] : Contention.values()[index - fns];
  }
}

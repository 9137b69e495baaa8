package blksim.queues.cost;

/**
 * What a charge of CPU time is for, as the ledger and the profile name it: a kernel function
 * ({@link KernelFn}), time that contention adds ({@link Contention}), or a function that a patch
 * described as data adds ({@link AddedFn}). Every id has a dense index, so that a ledger keeps its
 * entries in arrays.
 */
public sealed interface CostId permits KernelFn, Contention, AddedFn {
  /** The name in profiles and reports. */
  String symbol();

  /** The name on {@code kernel}, for what was renamed between versions. */
  default String symbol(blksim.config.KernelSettings kernel) {
    return symbol();
  }

  /**
   * A dense index over every id: kernel functions first, then contention, then the slots of added
   * functions.
   */
  int index();

  /** The name of its streams of per-call variation ({@link CallVariation}). */
  default String streamName() {
    return ((Enum<?>) this).name();
  }

  /** How many ids there are. */
  static int count() {
    return AddedFn.FIRST_INDEX + blksim.config.PatchData.MAX_ADDED;
  }

  /**
   * The id of {@code index}; for an added function's slot, a stand-in that names the slot (a run's
   * ledger knows the function it holds).
   */
  static CostId of(int index) {
    int fns = KernelFn.values().length;
    if (index < fns) {
      return KernelFn.values()[index];
    }
    return index < AddedFn.FIRST_INDEX
        ? Contention.values()[index - fns]
        : AddedFn.slot(index - AddedFn.FIRST_INDEX);
  }
}

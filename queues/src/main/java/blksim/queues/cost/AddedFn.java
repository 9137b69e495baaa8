package blksim.queues.cost;

/**
 * A function that a patch described as data adds to the path ({@code adds} of {@code
 * blksim.patches.NAME}, docs/your-patch.md): charged where its caller is, under its own name. A run
 * numbers its added functions from 0 in the order of its patches; the slot gives the id's index.
 */
public final class AddedFn implements CostId {
  /** The index of slot 0: after every kernel function and contention. */
  static final int FIRST_INDEX = KernelFn.values().length + Contention.values().length;

  private final String symbol;
  private final int slot;

  AddedFn(String symbol, int slot) {
    if (slot < 0 || slot >= blksim.config.PatchData.MAX_ADDED) {
      throw new IllegalArgumentException("slot " + slot + " of an added function");
    }
    this.symbol = symbol;
    this.slot = slot;
  }

  /** The stand-in of a slot, for what walks every index. */
  static AddedFn slot(int slot) {
    return new AddedFn("(added function " + slot + ")", slot);
  }

  @Override
  public String symbol() {
    return symbol;
  }

  @Override
  public int index() {
    return FIRST_INDEX + slot;
  }

  /** Its streams are the slot's: a run's first added function draws from slot 0's. */
  @Override
  public String streamName() {
    return "ADDED_" + slot;
  }

  @Override
  public String toString() {
    return symbol;
  }
}

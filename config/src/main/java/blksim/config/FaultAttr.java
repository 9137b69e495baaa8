package blksim.config;

/**
 * A fault-injection attribute as {@code lib/fault-inject.c} sets it up from a module parameter:
 * {@code <interval>,<probability>,<space>,<times>} ({@code setup_fault_attr}, scanf {@code
 * "%lu,%lu,%d,%d"}). null_blk has two, {@code requeue} and {@code timeout} (docs/kernel.md 3.1).
 *
 * @param interval fail only every {@code interval}-th call that gets that far (1: every one)
 * @param probability percent of those calls that fail
 * @param space calls (of size 1) let through before any may fail
 * @param times failures at most; -1 for no limit
 */
public record FaultAttr(long interval, long probability, int space, int times) {

  /** No faults: the parameter left empty. */
  public static final FaultAttr NONE = new FaultAttr(1, 0, 0, 0);

  /** Whether it can ever fail. */
  public boolean enabled() {
    return probability > 0 && times != 0;
  }

  /**
   * Parses {@code value} of parameter {@code name}.
   *
   * @throws ConfigError naming what is accepted, as the module refuses to load
   */
  public static FaultAttr parse(String name, String value) {
    if (value.isBlank()) {
      return NONE;
    }
    String[] f = value.strip().split(",", -1);
    String accepted =
        ": accepted <interval>,<probability>,<space>,<times>, e.g. 1,10,0,-1 (10 % of requests)";
    if (f.length != 4) {
      throw new ConfigError("null_blk " + name + "=" + value + accepted);
    }
    try {
      long interval = Long.parseLong(f[0].strip());
      long probability = Long.parseLong(f[1].strip());
      int space = Integer.parseInt(f[2].strip());
      int times = Integer.parseInt(f[3].strip());
      if (interval < 0 || probability < 0 || probability > 100 || times < -1 || space < 0) {
        throw new ConfigError(
            "null_blk "
                + name
                + "="
                + value
                + ": interval >= 0, probability 0 to 100, space >= 0, times -1 or more");
      }
      return new FaultAttr(interval, probability, space, times);
    } catch (NumberFormatException e) {
      throw new ConfigError("null_blk " + name + "=" + value + accepted);
    }
  }
}

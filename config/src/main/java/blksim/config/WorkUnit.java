package blksim.config;

/**
 * The units a patch described as data counts its work in ({@code blksim.patches}), each priced on
 * the active profile's {@link MicroArch} facts, so that one description predicts on every CPU
 * (docs/your-patch.md).
 */
public enum WorkUnit {
  /** A dependent load that hits L1: {@code l1-load-cycles}. */
  L1_LOADS("l1-loads"),
  /** A dependent load that hits L2: {@code l2-load-cycles}. */
  L2_LOADS("l2-loads"),
  /** An out-of-line call and return of a small function: {@code call-cycles}. */
  CALLS("calls"),
  /**
   * A call through a function pointer: {@code call-cycles} plus {@code retpoline-cycles}, the
   * thunk's forced return misprediction on a kernel built with CONFIG_RETPOLINE (0 without).
   */
  INDIRECT_CALLS("indirect-calls"),
  /** One store in a run of independent stores: {@code store-cycles}. */
  STORES("stores"),
  /** An uncontended {@code lock}-prefixed read-modify-write: {@code atomic-cycles}. */
  ATOMICS("atomics"),
  /** {@code local_irq_save} plus {@code local_irq_restore}: {@code irq-save-restore-cycles}. */
  IRQ_SAVE_RESTORE("irq-save-restore"),
  /** One {@code ktime_get_ns()}: {@code ktime-get-ns}. */
  KTIME("ktime"),
  /**
   * Qwords of one {@code rep stosq}: its start-up ({@code rep-stos-startup-cycles}) plus {@code
   * rep-stos-qword-cycles} a qword; a negative count takes one such string away.
   */
  REP_STOS_QWORDS("rep-stos-qwords"),
  /** A cache line moving to this core from another one: {@code cacheline-transfer-ns}. */
  CACHELINES("cachelines"),
  /**
   * A plain price, for what no unit describes: nanoseconds on the reference box of begunkov-2021,
   * times the profile's {@code scale} as the shape's steps are.
   */
  NS("ns");

  /** The most of a unit one change may count, either way: far beyond any fast-path patch. */
  static final double MAX_COUNT = 100_000;

  private final String key;

  WorkUnit(String key) {
    this.key = key;
  }

  /** The name in HOCON. */
  public String key() {
    return key;
  }

  /** The unit named {@code key}, or null. */
  static WorkUnit of(String key) {
    for (WorkUnit u : values()) {
      if (u.key.equals(key)) {
        return u;
      }
    }
    return null;
  }

  static String keys() {
    StringBuilder b = new StringBuilder();
    for (WorkUnit u : values()) {
      b.append(b.length() == 0 ? "" : ", ").append(u.key);
    }
    return b.toString();
  }
}

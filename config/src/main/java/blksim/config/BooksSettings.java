package blksim.config;

/**
 * End-of-run books.
 *
 * @param breakOnPurpose an invariant to break deliberately, to see the books catch it
 * @param throwAfter with {@code throw}: the request at which a hardware queue throws
 */
public record BooksSettings(Break breakOnPurpose, long throwAfter) {

  /** Invariants that can be broken on purpose. */
  public enum Break {
    NONE,
    /** A bio is dropped on its way back to the cache or slab. */
    LEAK_BIO,
    /** A tag is never given back to the hardware queue. */
    LEAK_TAG,
    /** A hardware queue throws as it ends a request ({@code throw-after}): the run must end. */
    THROW
  }

  static BooksSettings from(SettingsReader r) {
    return new BooksSettings(
        r.oneOf("blksim.books.break", Break.class),
        r.longIn("blksim.books.throw-after", 1, Long.MAX_VALUE));
  }
}

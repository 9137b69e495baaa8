package blksim.config;

/**
 * End-of-run books.
 *
 * @param breakOnPurpose an invariant to break deliberately, to see the books catch it
 */
public record BooksSettings(Break breakOnPurpose) {

  /** Invariants that can be broken on purpose. */
  public enum Break {
    NONE,
    /** A bio is dropped on its way back to the cache or slab. */
    LEAK_BIO,
    /** A tag is never given back to the hardware queue. */
    LEAK_TAG,
    /** A hardware queue throws as it ends its 100,000th request: the run must end, exit 3. */
    THROW
  }

  static BooksSettings from(SettingsReader r) {
    return new BooksSettings(r.oneOf("blksim.books.break", Break.class));
  }
}

package blksim.queues.io_uring;

/** Ring geometry shared by the SQ and CQ rings: power-of-two entries, free-running sequences. */
final class Ring {
  private Ring() {}

  /**
   * Checks that {@code entries} is a power of two and returns the mask.
   *
   * @throws IllegalArgumentException otherwise
   */
  static int mask(int entries) {
    if (entries <= 0 || Integer.bitCount(entries) != 1) {
      throw new IllegalArgumentException("ring entries must be a power of two, was " + entries);
    }
    return entries - 1;
  }
}

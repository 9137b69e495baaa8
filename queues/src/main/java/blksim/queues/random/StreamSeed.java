package blksim.queues.random;

import java.nio.charset.StandardCharsets;

/**
 * The seed of a named random stream: the run's root seed mixed with an FNV-1a hash of the name, so
 * that adding a stream never shifts another.
 */
public final class StreamSeed {
  private StreamSeed() {}

  /** The seed of the stream {@code name} (tick-cpu0, submitter1, ...) under {@code rootSeed}. */
  public static long of(long rootSeed, String name) {
    return mix64(rootSeed ^ fnv1a64(name));
  }

  /** SplitMix64's finaliser. */
  public static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  private static long fnv1a64(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }
}

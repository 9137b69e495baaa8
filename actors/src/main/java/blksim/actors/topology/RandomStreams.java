package blksim.actors.topology;

import java.nio.charset.StandardCharsets;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * One random stream per source of randomness, seeded from the run's root seed and the owner's name,
 * so that adding a stream never shifts another.
 */
public final class RandomStreams {
  private RandomStreams() {}

  private static final RandomGeneratorFactory<RandomGenerator> FACTORY =
      RandomGeneratorFactory.of("L64X128MixRandom");

  /** The stream of {@code owner} (submitter0, nullb0) under {@code rootSeed}. */
  public static RandomGenerator of(long rootSeed, String owner) {
    return FACTORY.create(mix64(rootSeed ^ fnv1a64(owner)));
  }

  private static long fnv1a64(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  /** SplitMix64's finaliser. */
  private static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}

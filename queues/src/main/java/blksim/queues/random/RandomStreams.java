package blksim.queues.random;

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
    return FACTORY.create(StreamSeed.of(rootSeed, owner));
  }
}

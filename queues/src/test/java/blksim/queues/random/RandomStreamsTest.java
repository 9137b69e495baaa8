package blksim.queues.random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * Common random numbers (docs/model.md): each source of randomness draws from a stream of its own,
 * seeded from the run's seed and the source's name alone, so that A and B of a compare see the same
 * draws wherever they draw alike, and a stream added or drawn from never shifts another.
 */
class RandomStreamsTest {
  private static long[] draws(RandomGenerator g, int n) {
    long[] d = new long[n];
    for (int i = 0; i < n; i++) {
      d[i] = g.nextLong();
    }
    return d;
  }

  @Test
  void aStreamShouldBeAFunctionOfTheSeedAndItsNameAlone() {
    long[] first = draws(RandomStreams.of(7, "tick-cpu3"), 64);
    RandomGenerator other = RandomStreams.of(7, "submitter0");
    draws(other, 1000); // another source draws a lot in between
    assertArrayEquals(first, draws(RandomStreams.of(7, "tick-cpu3"), 64));
  }

  @Test
  void anotherNameOrAnotherSeedShouldGiveAnotherStream() {
    long[] a = draws(RandomStreams.of(7, "tick-cpu3"), 16);
    assertFalse(Arrays.equals(a, draws(RandomStreams.of(7, "tick-cpu4"), 16)), "per CPU");
    assertFalse(Arrays.equals(a, draws(RandomStreams.of(8, "tick-cpu3"), 16)), "per seed");
  }

  @Test
  void theSeedShouldMixTheRootSeedWithTheFnv1aHashOfTheName() {
    // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector); of "" the offset basis
    assertEquals(StreamSeed.mix64(0xaf63dc4c8601ec8cL), StreamSeed.of(0, "a"));
    assertEquals(StreamSeed.mix64(0xcbf29ce484222325L ^ 5), StreamSeed.of(5, ""));
  }

  @Test
  void mix64ShouldBeSplitMix64sFinaliser() {
    // SplitMix64 from state 0: its first output is the finaliser of the golden gamma
    assertEquals(0xe220a8397b1dcdafL, StreamSeed.mix64(0x9e3779b97f4a7c15L));
    assertEquals(0L, StreamSeed.mix64(0L));
  }
}

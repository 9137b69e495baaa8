package blksim.queues.cost;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CallVariationTest {
  private static final CallVariation.Spec SPEC =
      new CallVariation.Spec(1, CallFactors.lognormal(0.15));
  private static final CostStep BIO_INIT = new CostStep(KernelFn.BIO_INIT, 5_000);
  private static final CostStep NULL_POLL = new CostStep(KernelFn.NULL_POLL, 14_000);

  private static long[] draws(CallVariation v, CostStep step, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = v.draw(0, step, 1);
    }
    return out;
  }

  @Test
  void callsShouldVaryAroundTheirMean() {
    long[] d = draws(SPEC.streams("cpu0"), BIO_INIT, 200_000);
    double mean = Arrays.stream(d).average().orElseThrow();
    assertEquals(5_000, mean, 5_000 * 0.002, "the step's price on average");
    assertFalse(Arrays.stream(d).allMatch(x -> x == d[0]), "calls vary");
    double sd =
        Math.sqrt(Arrays.stream(d).mapToDouble(x -> (x - mean) * (x - mean)).sum() / d.length);
    assertEquals(0.15, sd / mean, 0.015);
  }

  @Test
  void aFunctionsDrawsShouldNotDependOnWhatElseIsCharged() {
    // common random numbers: a patch that adds or drops calls of null_poll leaves bio_init's as
    // they were
    CallVariation alone = SPEC.streams("cpu0");
    CallVariation mixed = SPEC.streams("cpu0");
    long[] a = draws(alone, BIO_INIT, 1_000);
    long[] b = new long[1_000];
    for (int i = 0; i < b.length; i++) {
      mixed.draw(0, NULL_POLL, i % 3);
      b[i] = mixed.draw(0, BIO_INIT, 1);
      mixed.draw(1, BIO_INIT, 1);
    }
    assertArrayEquals(a, b);
  }

  @Test
  void eachComponentAndCpuShouldHaveStreamsOfItsOwn() {
    long[] cpu0 = draws(SPEC.streams("cpu0"), BIO_INIT, 100);
    long[] cpu1 = draws(SPEC.streams("cpu1"), BIO_INIT, 100);
    long[] again = draws(SPEC.streams("cpu0"), BIO_INIT, 100);
    assertArrayEquals(cpu0, again, "same seed and name, same draws");
    assertFalse(Arrays.equals(cpu0, cpu1));
    long[] otherSeed =
        draws(
            new CallVariation.Spec(2, CallFactors.lognormal(0.15)).streams("cpu0"), BIO_INIT, 100);
    assertFalse(Arrays.equals(cpu0, otherSeed));
  }

  @Test
  void aBatchOfCallsShouldVaryAsTheSumOfIndependentCalls() {
    CallVariation v = SPEC.streams("nullb0-hctx1");
    int n = 50_000;
    double sum = 0;
    double sum2 = 0;
    for (int i = 0; i < n; i++) {
      double x = v.draw(0, NULL_POLL, 32);
      sum += x;
      sum2 += x * x;
    }
    double mean = sum / n;
    double sd = Math.sqrt(sum2 / n - mean * mean);
    assertEquals(32 * 14_000, mean, 32 * 14_000 * 0.001);
    assertEquals(0.15 / Math.sqrt(32), sd / mean, 0.003, "cv / sqrt(32)");
  }

  @Test
  void noVariationShouldMeanNoStreams() {
    assertNull(CallVariation.Spec.NONE.streams("cpu0"));
    assertEquals(0, SPEC.streams("cpu0").draw(0, new CostStep(KernelFn.BIO_INIT, 0), 5));
  }
}

package blksim.queues.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CallFactorsTest {

  @Test
  void theNormalQuantileShouldMatchItsTables() {
    assertEquals(0, CallFactors.normalQuantile(0.5), 1e-12);
    assertEquals(1.959964, CallFactors.normalQuantile(0.975), 1e-6);
    assertEquals(-2.326348, CallFactors.normalQuantile(0.01), 1e-6);
    assertEquals(3.090232, CallFactors.normalQuantile(0.999), 1e-6);
  }

  @Test
  void aStepShouldCostItsMeanOnAverageExactly() {
    CallFactors f = CallFactors.lognormal(0.15);
    long sum = 0;
    for (int i = 0; i < CallFactors.SIZE; i++) {
      sum += f.scale(1L << CallFactors.ONE_SHIFT, i);
    }
    assertEquals((long) CallFactors.SIZE << CallFactors.ONE_SHIFT, sum, "mean factor exactly 1");
  }

  @Test
  void theFactorsShouldSpreadByTheirCvAndSkewRight() {
    for (double cv : new double[] {0.05, 0.15, 0.5}) {
      CallFactors f = CallFactors.lognormal(cv);
      double sum2 = 0;
      for (int i = 0; i < CallFactors.SIZE; i++) {
        double d = f.factor(i) - 1;
        sum2 += d * d;
      }
      double sd = Math.sqrt(sum2 / CallFactors.SIZE);
      // 256 quantiles leave out the farthest tails: a little less spread than the distribution's
      assertEquals(cv, sd, cv * 0.08, "cv " + cv);
      double median = (f.factor(CallFactors.SIZE / 2 - 1) + f.factor(CallFactors.SIZE / 2)) / 2;
      assertTrue(median < 1, "right-skewed: the median call is cheaper than the mean");
      assertTrue(f.factor(CallFactors.SIZE - 1) - 1 > 1 - f.factor(0), "a longer right tail");
      for (int i = 1; i < CallFactors.SIZE; i++) {
        assertTrue(f.factor(i) >= f.factor(i - 1), "quantiles in order");
      }
    }
  }

  @Test
  void largeChargesShouldNotOverflow() {
    CallFactors f = CallFactors.lognormal(0.15);
    long ps = 1_000_000_000L * 100_000; // a 1 ms step charged 100,000 times
    int top = CallFactors.SIZE - 1;
    assertEquals(Math.round(ps * f.factor(top)), f.scale(ps, top), ps * 1e-9);
  }

  @Test
  void aCvOutsideItsRangeShouldBeRefused() {
    assertThrows(IllegalArgumentException.class, () -> CallFactors.lognormal(0));
    assertThrows(IllegalArgumentException.class, () -> CallFactors.lognormal(2.5));
  }
}

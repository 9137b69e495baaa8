package blksim.queues.cost;

/**
 * The factors by which one call of a step costs more or less than the step's mean: 4,096 quantiles
 * of a lognormal distribution of mean 1 and a given coefficient of variation, in fixed point (1 =
 * 65,536), adjusted so that their mean is exactly 1. A call draws one at random; a step costs its
 * mean on average, and its calls spread right-skewed, as calls that miss a cache line do.
 *
 * <p>The table is computed with {@link StrictMath}, so it is the same on every JVM.
 */
public final class CallFactors {
  /** log2 of the number of factors. */
  static final int BITS = 8;

  static final int SIZE = 1 << BITS;

  /** Fixed-point one. */
  static final int ONE_SHIFT = 16;

  /** Below this, ps times any factor (at most 2^23 for cv 2) fits a long. */
  private static final long SMALL = 1L << 38;

  private final double cv;

  /** Small enough (1 KiB) to stay in the simulating CPU's L1 beside the model's own data. */
  private final int[] factors = new int[SIZE];

  private CallFactors(double cv) {
    this.cv = cv;
    double sigma2 = StrictMath.log1p(cv * cv);
    double sigma = StrictMath.sqrt(sigma2);
    double[] x = new double[SIZE];
    double sum = 0;
    for (int i = 0; i < SIZE; i++) {
      double z = normalQuantile((i + 0.5) / SIZE);
      x[i] = StrictMath.exp(sigma * z - sigma2 / 2);
      sum += x[i];
    }
    long total = 0;
    for (int i = 0; i < SIZE; i++) {
      factors[i] = (int) StrictMath.round(x[i] * SIZE / sum * (1L << ONE_SHIFT));
      total += factors[i];
    }
    // Rounding leaves the sum a few units off SIZE << ONE_SHIFT: the largest factor takes the rest.
    factors[SIZE - 1] += (int) (((long) SIZE << ONE_SHIFT) - total);
  }

  /** The factors of a lognormal of mean 1 and coefficient of variation {@code cv} (0 < cv <= 2). */
  public static CallFactors lognormal(double cv) {
    if (!(cv > 0 && cv <= 2)) {
      throw new IllegalArgumentException("cv must be in (0, 2]: " + cv);
    }
    return new CallFactors(cv);
  }

  /** The coefficient of variation the table was built for. */
  public double cv() {
    return cv;
  }

  /** {@code ps} times the {@code index}-th factor (0 <= index < 256), rounded. */
  long scale(long ps, int index) {
    long f = factors[index];
    if (ps < SMALL) {
      return (ps * f + (1L << (ONE_SHIFT - 1))) >>> ONE_SHIFT;
    }
    // (ps * f + half) >> 16, without overflow for any ps a run can charge
    long low = ((ps & ((1L << ONE_SHIFT) - 1)) * f + (1L << (ONE_SHIFT - 1))) >>> ONE_SHIFT;
    return (ps >>> ONE_SHIFT) * f + low;
  }

  /** The {@code index}-th factor as a double, for tests and reports. */
  double factor(int index) {
    return factors[index] / (double) (1L << ONE_SHIFT);
  }

  /**
   * The standard normal's quantile, by P. J. Acklam's rational approximation (relative error below
   * 1.15e-9), which is plenty for a table of 256 steps.
   */
  static double normalQuantile(double p) {
    final double plow = 0.02425;
    if (p < plow) {
      double q = StrictMath.sqrt(-2 * StrictMath.log(p));
      return tail(q);
    }
    if (p > 1 - plow) {
      double q = StrictMath.sqrt(-2 * StrictMath.log1p(-p));
      return -tail(q);
    }
    double q = p - 0.5;
    double r = q * q;
    double num =
        (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r - 2.759285104469687e+02) * r
                            + 1.383577518672690e+02)
                        * r
                    - 3.066479806614716e+01)
                * r
            + 2.506628277459239e+00);
    double den =
        ((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r - 1.556989798598866e+02) * r
                            + 6.680131188771972e+01)
                        * r
                    - 1.328068155288572e+01)
                * r
            + 1;
    return num * q / den;
  }

  private static double tail(double q) {
    double num =
        ((((-7.784894002430293e-03 * q - 3.223964580411365e-01) * q - 2.400758277161838e+00) * q
                            - 2.549732539343734e+00)
                        * q
                    + 4.374664141464968e+00)
                * q
            + 2.938163982698783e+00;
    double den =
        (((7.784695709041462e-03 * q + 3.224671290700398e-01) * q + 2.445134137142996e+00) * q
                    + 3.754408661907416e+00)
                * q
            + 1;
    return num / den;
  }
}

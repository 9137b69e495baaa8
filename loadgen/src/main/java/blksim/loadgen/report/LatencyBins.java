package blksim.loadgen.report;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * A latency histogram's bars: the I/Os of each bin of equal width from the lowest latency to the
 * highest, the width a round number of ns (1, 2 or 5 times a power of ten) that makes at most
 * {@link #MAX_BINS} bins.
 */
final class LatencyBins {
  static final int MAX_BINS = 60;

  /**
   * @param widthNs each bin's width
   * @param centerUs each bin's middle, in µs
   * @param ios the I/Os of each bin
   */
  record Bins(long widthNs, List<Double> centerUs, List<Double> ios) {}

  private LatencyBins() {}

  static Bins of(Histogram h) {
    if (h.getTotalCount() == 0) {
      return new Bins(1, List.of(), List.of());
    }
    long lo = h.lowestEquivalentValue(h.getMinValue());
    long hi = h.highestEquivalentValue(h.getMaxValue());
    long width = width(hi - lo + 1);
    long first = lo / width * width;
    int n = (int) ((hi - first) / width) + 1;
    long[] counts = new long[n];
    for (HistogramIterationValue v : h.recordedValues()) {
      long at = h.medianEquivalentValue(v.getValueIteratedTo());
      int i = (int) Math.min(n - 1, Math.max(0, (at - first) / width));
      counts[i] += v.getCountAtValueIteratedTo();
    }
    List<Double> center = new ArrayList<>();
    List<Double> ios = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      center.add((first + i * width + width / 2.0) / 1000.0);
      ios.add((double) counts[i]);
    }
    return new Bins(width, center, ios);
  }

  /** The smallest of 1, 2, 5, 10, 20, 50, ... ns that cuts {@code spanNs} into few enough bins. */
  static long width(long spanNs) {
    for (long decade = 1; ; decade *= 10) {
      for (long m : new long[] {1, 2, 5}) {
        if ((spanNs + m * decade - 1) / (m * decade) <= MAX_BINS) {
          return m * decade;
        }
      }
    }
  }
}

package blksim.queues.cost;

import blksim.queues.random.StreamSeed;
import java.util.Arrays;

/**
 * One component's draws of per-call variation: each call of a kernel function on a CPU costs the
 * function's mean times a factor of {@link CallFactors}, drawn from a stream of that function, CPU
 * and component alone; a charge of several calls at once draws once, for their sum. A patch that
 * changes one function's calls leaves every other function's draws where they were, so that A and B
 * of a compare see the same variation (common random numbers).
 *
 * <p>Each stream is a SplitMix64 generator seeded from the run's seed and the stream's name ({@code
 * vary-<owner>-cpu<N>-<FUNCTION>}, the function's constant name); a 64-bit output gives five 12-bit
 * draws.
 */
public final class CallVariation {
  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

  /** Above the 7 draws (56 bits) of one output: when only it is left, the output is used up. */
  private static final long MARKER = 1L << 56;

  /** A run's variation: its seed and its factors; {@link #NONE} when every call costs its mean. */
  public record Spec(long rootSeed, CallFactors factors) {
    public static final Spec NONE = new Spec(0, null);

    /** The draws of the component {@code owner}, or null when calls do not vary. */
    public CallVariation streams(String owner) {
      return factors == null ? null : new CallVariation(rootSeed, factors, owner);
    }
  }

  private final long rootSeed;
  private final CallFactors factors;
  private final String owner;

  /**
   * The streams, by CPU and then two longs per {@link CostId#index()}: the generator's state, and
   * the draws left of its last output (7 bytes under a marker bit; 1 when none are left).
   */
  private long[][] streams = new long[0][];

  /** The CPU charged last, and its streams: most components charge one CPU. */
  private int lastCpu = -1;

  private long[] lastStreams;

  /** The factors of sums of n calls, by n, built as they are first needed. */
  private CallFactors[] byCalls = new CallFactors[33];

  private static final int MAX_CALLS_TABLE = 1024;

  private CallVariation(long rootSeed, CallFactors factors, String owner) {
    this.rootSeed = rootSeed;
    this.factors = factors;
    this.owner = owner;
  }

  /**
   * The time of {@code calls} calls of {@code step} on {@code cpu}, in ps: their mean times one
   * factor, drawn from the table of the sum of {@code calls} calls ({@link #factorsOf}).
   */
  public long draw(int cpu, CostStep step, long calls) {
    long mean = step.ps();
    if (mean == 0 || calls <= 0) {
      return 0;
    }
    long[] st = cpu == lastCpu ? lastStreams : streamsOf(cpu);
    int i = 2 * step.id().index();
    long left = st[i + 1];
    if (left == 1) {
      st[i] += GOLDEN_GAMMA;
      left = (StreamSeed.mix64(st[i]) >>> CallFactors.BITS) | MARKER;
    }
    st[i + 1] = left >>> CallFactors.BITS;
    return factorsOf(calls).scale(mean * calls, (int) (left & (CallFactors.SIZE - 1)));
  }

  /**
   * The factors of a sum of {@code calls} calls, each varying by the run's cv: the sum's mean is
   * {@code calls} means and its coefficient of variation cv / sqrt(calls) (independent calls); it
   * is drawn once, from a lognormal of that cv, so that a batch of 32 costs one draw, not 32. Past
   * {@value #MAX_CALLS_TABLE} calls the spread (cv / 32 and less) is that of {@value
   * #MAX_CALLS_TABLE}.
   */
  CallFactors factorsOf(long calls) {
    if (calls == 1) {
      return factors;
    }
    int n = (int) Math.min(calls, MAX_CALLS_TABLE);
    if (n >= byCalls.length) {
      byCalls = Arrays.copyOf(byCalls, Math.max(n + 1, 2 * byCalls.length));
    }
    CallFactors f = byCalls[n];
    if (f == null) {
      f = CallFactors.lognormal(factors.cv() / StrictMath.sqrt(n));
      byCalls[n] = f;
    }
    return f;
  }

  private long[] streamsOf(int cpu) {
    long[] st = cpu < streams.length && streams[cpu] != null ? streams[cpu] : seed(cpu);
    lastCpu = cpu;
    lastStreams = st;
    return st;
  }

  private long[] seed(int cpu) {
    if (cpu >= streams.length) {
      streams = Arrays.copyOf(streams, cpu + 1);
    }
    long[] st = new long[2 * CostId.count()];
    for (int i = 0; i < CostId.count(); i++) {
      String name = "vary-" + owner + "-cpu" + cpu + "-" + CostId.of(i).streamName();
      st[2 * i] = StreamSeed.of(rootSeed, name);
      st[2 * i + 1] = 1;
    }
    streams[cpu] = st;
    return st;
  }
}

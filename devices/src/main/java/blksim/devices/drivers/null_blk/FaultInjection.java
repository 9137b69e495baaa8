package blksim.devices.drivers.null_blk;

import blksim.config.FaultAttr;
import java.util.function.IntFunction;
import java.util.random.RandomGenerator;

/**
 * {@code should_fail} of lib/fault-inject.c over one {@link FaultAttr}: the attribute's state
 * (calls counted for the interval, space left, failures left) is the device's; the random draw is
 * the calling CPU's ({@code prandom_u32} is per CPU), from a stream of its own.
 */
public final class FaultInjection {
  private final FaultAttr attr;
  private final IntFunction<RandomGenerator> streams;
  private final RandomGenerator[] byCpu;
  private long count;
  private long space;
  private long times;
  private long failures;

  /**
   * @param streams the random stream of each CPU, made on first use
   * @param nrCpus the machine's CPUs
   */
  public FaultInjection(FaultAttr attr, IntFunction<RandomGenerator> streams, int nrCpus) {
    this.attr = attr;
    this.streams = streams;
    this.byCpu = new RandomGenerator[nrCpus];
    this.space = attr.space();
    this.times = attr.times();
  }

  /** No faults. */
  public static FaultInjection none() {
    return new FaultInjection(FaultAttr.NONE, cpu -> null, 0);
  }

  /** {@code should_fail(attr, 1)} on {@code cpu}. */
  public boolean shouldFail(int cpu) {
    if (attr.probability() == 0 || times == 0) {
      return false;
    }
    if (space > 1) {
      // space > size, with size 1: null_blk asks for one request at a time.
      space--;
      return false;
    }
    if (attr.interval() > 1) {
      count++;
      if (count % attr.interval() != 0) {
        return false;
      }
    }
    if (attr.probability() <= random(cpu).nextInt(100)) {
      return false;
    }
    if (times != -1) {
      times--;
    }
    failures++;
    return true;
  }

  /** Calls that failed. */
  public long failures() {
    return failures;
  }

  private RandomGenerator random(int cpu) {
    RandomGenerator r = byCpu[cpu];
    if (r == null) {
      r = streams.apply(cpu);
      byCpu[cpu] = r;
    }
    return r;
  }
}

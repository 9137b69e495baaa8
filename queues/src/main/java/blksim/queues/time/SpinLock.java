package blksim.queues.time;

/**
 * A spinlock as a resource in virtual time: another CPU that arrives while it is held spins until
 * it is free; taking it after another CPU held it last first moves its cache line over. It lives
 * inside the one actor that owns the structure it guards, so requests reach it in time order.
 */
public final class SpinLock {
  private final String name;
  private long busyUntilPs;
  private int lastCpu = -1;
  private long acquisitions;
  private long contended;
  private long waitedPs;

  public SpinLock(String name) {
    this.name = name;
  }

  /**
   * One acquisition.
   *
   * @param waitPs time spun before the lock was free
   * @param transferPs time the lock's line took to come from the CPU that held it last (0 if this
   *     one)
   * @param releasePs when it is released
   */
  public record Acquired(long waitPs, long transferPs, long releasePs) {}

  /**
   * {@code cpu} takes the lock at {@code atPs} and holds it {@code holdPs}.
   *
   * @param lineTransferPs what moving a cache line from another core costs
   */
  public Acquired acquire(int cpu, long atPs, long holdPs, long lineTransferPs) {
    // A CPU that held the lock last released it before it went on (program order): it never
    // spins on its own hold, however little its work since cost.
    long start = lastCpu == cpu ? atPs : Math.max(atPs, busyUntilPs);
    long transfer = lastCpu >= 0 && lastCpu != cpu ? lineTransferPs : 0;
    long release = start + transfer + holdPs;
    acquisitions++;
    if (start > atPs) {
      contended++;
      waitedPs += start - atPs;
    }
    busyUntilPs = release;
    lastCpu = cpu;
    return new Acquired(start - atPs, transfer, release);
  }

  public String name() {
    return name;
  }

  public long acquisitions() {
    return acquisitions;
  }

  /** Acquisitions that had to wait. */
  public long contended() {
    return contended;
  }

  public long waitedPs() {
    return waitedPs;
  }
}

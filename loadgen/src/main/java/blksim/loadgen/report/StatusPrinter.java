package blksim.loadgen.report;

import blksim.actors.tiouring.StatusSink;
import blksim.queues.time.VirtualTime;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints t/io_uring's status lines as the intervals end, and {@code Exiting on timeout} and {@code
 * Maximum IOPS} when the runtime is over. Each IOPS figure is scaled to one second of virtual time.
 */
public final class StatusPrinter implements StatusSink {

  /**
   * One printed interval.
   *
   * @param iops submissions per second over the interval
   * @param rpc submissions per call
   * @param ipc reaps per call
   */
  public record Line(
      int index,
      long startNs,
      long endNs,
      long done,
      long iops,
      long rpc,
      long ipc,
      List<Long> doneBySubmitter) {}

  private final PrintStream out;
  private final int bs;
  private final boolean nop;
  private final List<Line> lines = new ArrayList<>();
  private long maxIops;
  private IntervalLog log;

  /** Submissions the status lines have counted so far, for a progress display on another thread. */
  private volatile long doneSoFar;

  /**
   * @param nop {@code -N1}: t/io_uring prints no bandwidth
   */
  public StatusPrinter(PrintStream out, int bs, boolean nop) {
    this.out = out;
    this.bs = bs;
    this.nop = nop;
  }

  /** Also logs each interval's latencies to {@code log}. */
  public void logTo(IntervalLog log) {
    this.log = log;
  }

  @Override
  public boolean wantsIntervalLatency() {
    return log != null;
  }

  /** Submissions counted by the status lines so far; any thread may read it. */
  public long doneSoFar() {
    return doneSoFar;
  }

  @Override
  public void interval(Interval iv) {
    doneSoFar += iv.done();
    if (log != null) {
      log.interval(iv.startPs(), iv.endPs(), iv.latencyBySubmitter());
    }
    long lengthNs = VirtualTime.ns(iv.endPs() - iv.startPs());
    long iops = lengthNs == 0 ? 0 : iv.done() * VirtualTime.NS_PER_SEC / lengthNs;
    long rpc = iv.calls() == 0 ? -1 : iv.done() / iv.calls();
    long ipc = iv.calls() == 0 ? -1 : iv.reaps() / iv.calls();
    maxIops = Math.max(maxIops, iops);
    lines.add(
        new Line(
            iv.index(),
            VirtualTime.ns(iv.startPs()),
            VirtualTime.ns(iv.endPs()),
            iv.done(),
            iops,
            rpc,
            ipc,
            iv.doneBySubmitter()));
    out.println(
        nop ? TIoUringFormat.nopStatus(iops, rpc, ipc) : TIoUringFormat.status(iops, rpc, ipc, bs));
  }

  @Override
  public void timeout(long atPs) {
    out.println("Exiting on timeout");
    out.println(TIoUringFormat.maximum(maxIops));
  }

  @Override
  public void interrupted(long atPs) {
    out.println("Exiting on signal");
    out.println(TIoUringFormat.maximum(maxIops));
  }

  @Override
  public void threadExited(long atPs, List<String> lines) {
    lines.forEach(out::println);
  }

  /** The intervals printed so far. */
  public List<Line> lines() {
    return List.copyOf(lines);
  }

  /** Submissions over all intervals, that is within the runtime. */
  public long done() {
    return lines.stream().mapToLong(Line::done).sum();
  }

  public long maxIops() {
    return maxIops;
  }
}

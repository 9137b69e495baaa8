package blksim.loadgen.report;

import blksim.actors.engine.Interruption;
import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A progress bar on a terminal's stderr for runs longer than about two seconds of wall time:
 * virtual time done of the runtime, simulated I/Os per wall second, and the time left. It reads
 * what the engine publishes and never writes to stdout, so the report's bytes do not depend on it.
 * The wall clock here measures the simulator, never the model.
 */
public final class Progress implements AutoCloseable {
  private static final long SHOW_AFTER_NS = 2_000_000_000L;
  private static final long EVERY_MS = 250;
  private static final int WIDTH = 30;

  private final PrintStream err;
  private Thread thread;
  private volatile boolean stop;
  private boolean shown;

  private Progress(PrintStream err) {
    this.err = err;
  }

  /**
   * Starts the display, or nothing when stderr is not a terminal ({@link #stderrIsTerminal}).
   * {@code BLKSIM_PROGRESS=1} shows it anyway, {@code 0} never.
   *
   * @param ios simulated I/Os so far, as the status lines have counted them
   */
  public static Progress start(
      PrintStream err, Interruption run, long runtimePs, LongSupplier ios) {
    String env = System.getenv("BLKSIM_PROGRESS");
    boolean on = env == null ? stderrIsTerminal() : env.equals("1");
    Progress p = new Progress(err);
    if (!on) {
      return p;
    }
    long start = System.nanoTime();
    p.thread = new Thread(() -> p.loop(run, runtimePs, ios, start), "blksim-progress");
    p.thread.setDaemon(true);
    p.thread.start();
    return p;
  }

  /**
   * Whether file descriptor 2 is a terminal: on Linux, what /proc/self/fd/2 links to (a pty or a
   * tty); elsewhere, whether the JVM has a console (stdin and stdout on a terminal).
   */
  static boolean stderrIsTerminal() {
    try {
      String target =
          java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (java.io.IOException | UnsupportedOperationException | SecurityException e) {
      return System.console() != null;
    }
  }

  private void loop(Interruption run, long runtimePs, LongSupplier ios, long start) {
    while (!stop) {
      try {
        Thread.sleep(EVERY_MS);
      } catch (InterruptedException e) {
        return;
      }
      long wall = System.nanoTime() - start;
      if (wall >= SHOW_AFTER_NS && !stop) {
        err.print("\r" + line(run.reachedPs(), runtimePs, ios.getAsLong(), wall));
        err.flush();
        shown = true;
      }
    }
  }

  /** The bar: {@code doneP}s of virtual time of {@code totalPs}, after {@code wallNs}. */
  static String line(long donePs, long totalPs, long ios, long wallNs) {
    double f = totalPs <= 0 ? 0 : Math.min(1.0, Math.max(0.0, donePs / (double) totalPs));
    int full = (int) Math.round(f * WIDTH);
    double wallS = wallNs / 1e9;
    double etaS = f <= 0 ? 0 : wallS * (1 - f) / f;
    return String.format(
        Locale.ROOT,
        "blksim [%s%s] %3.0f%% of %.3f s virtual, %s sim I/Os per wall s, ETA %.0f s ",
        "#".repeat(full),
        ".".repeat(WIDTH - full),
        100 * f,
        totalPs / 1e12,
        TIoUringFormat.iops(Math.round(wallS <= 0 ? 0 : ios / wallS)).substring(5),
        etaS);
  }

  /** Stops the display and clears its line. */
  @Override
  public void close() {
    stop = true;
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (shown) {
        err.print("\r" + " ".repeat(100) + "\r");
        err.flush();
      }
    }
  }
}

package blksim.loadgen.report;

import blksim.actors.engine.Interruption;
import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A progress bar on a terminal's stderr for runs longer than about two seconds of wall time:
 * virtual time done of the runtime, simulated I/Os per wall second, and the time left, both over
 * the last {@value #WINDOW_NS} ns of wall time. It reads what the engine publishes and never writes
 * to stdout, so the report's bytes do not depend on it; what the run writes to stdout goes through
 * {@link Guarded}, which clears the bar's line first. The wall clock here measures the simulator,
 * never the model.
 */
public final class Progress implements AutoCloseable {
  private static final long SHOW_AFTER_NS = 2_000_000_000L;
  private static final long EVERY_MS = 250;
  private static final int WIDTH = 30;

  /** The wall time the rate and the time left are measured over: the last few seconds. */
  static final long WINDOW_NS = 5_000_000_000L;

  private final PrintStream err;
  private Thread thread;
  private volatile boolean stop;

  /** The width of the line on the terminal now, 0 when none is shown; guarded by itself. */
  private final int[] shownWidth = {0};

  /** Samples of the window: wall ns, virtual ps done, I/Os, oldest first. */
  private final java.util.ArrayDeque<long[]> window = new java.util.ArrayDeque<>();

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
    Boolean wanted = wanted(System.getenv("BLKSIM_PROGRESS"));
    boolean on = wanted == null ? stderrIsTerminal() : wanted;
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
   * What {@code BLKSIM_PROGRESS} asks for: true (1), false (0), or null, unset or empty, for "when
   * stderr is a terminal".
   *
   * @throws blksim.config.ConfigError for any other value
   */
  public static Boolean wanted(String env) {
    if (env == null || env.isEmpty()) {
      return null;
    }
    if (env.equals("0") || env.equals("1")) {
      return env.equals("1");
    }
    throw new blksim.config.ConfigError(
        "BLKSIM_PROGRESS="
            + blksim.config.OneLine.clipped(env)
            + ": accepted 0 (no progress line), 1 (always one), or unset (when stderr is a"
            + " terminal)");
  }

  /**
   * Whether file descriptor 2 is a terminal: on Linux, what /proc/self/fd/2 links to (a pty or a
   * tty); elsewhere, whether the JVM has a console (stdin and stdout on a terminal).
   */
  public static boolean stderrIsTerminal() {
    try {
      String target =
          java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (java.io.IOException | UnsupportedOperationException | SecurityException e) {
      return System.console() != null;
    }
  }

  private void loop(Interruption run, long runtimePs, LongSupplier ios, long start) {
    window.add(new long[] {0, 0, 0});
    while (!stop) {
      try {
        Thread.sleep(EVERY_MS);
      } catch (InterruptedException e) {
        return;
      }
      long wall = System.nanoTime() - start;
      long[] now = {wall, run.reachedPs(), ios.getAsLong()};
      window.add(now);
      while (window.size() > 2 && now[0] - window.peekFirst()[0] > WINDOW_NS) {
        window.removeFirst();
      }
      long[] first = window.peekFirst();
      if (wall >= SHOW_AFTER_NS && !stop) {
        show(line(now[1], runtimePs, now[2] - first[2], now[1] - first[1], now[0] - first[0]));
      }
    }
  }

  private void show(String line) {
    synchronized (shownWidth) {
      int pad = Math.max(0, shownWidth[0] - line.length());
      err.print("\r" + line + " ".repeat(pad));
      err.flush();
      shownWidth[0] = line.length() + pad;
    }
  }

  /** A display with {@code line} shown and no thread of its own: for tests. */
  static Progress startShown(PrintStream err, String line) {
    Progress p = new Progress(err);
    p.show(line);
    return p;
  }

  /** Clears the bar's line, if one is shown: before the run writes to stdout, and at the end. */
  void clear() {
    synchronized (shownWidth) {
      if (shownWidth[0] > 0) {
        err.print("\r" + " ".repeat(shownWidth[0]) + "\r");
        err.flush();
        shownWidth[0] = 0;
      }
    }
  }

  /**
   * The bar: {@code donePs} of virtual time of {@code totalPs}; the rate and the time left from the
   * window's {@code windowIos} I/Os and {@code windowPs} of virtual time in {@code windowNs} of
   * wall time.
   */
  static String line(long donePs, long totalPs, long windowIos, long windowPs, long windowNs) {
    double f = totalPs <= 0 ? 0 : Math.min(1.0, Math.max(0.0, donePs / (double) totalPs));
    int full = (int) Math.round(f * WIDTH);
    double wallS = windowNs / 1e9;
    double left = Math.max(0, totalPs - donePs);
    double etaS = windowPs <= 0 ? 0 : left / windowPs * wallS;
    return String.format(
        Locale.ROOT,
        "blksim [%s%s] %3.0f%% of %.3f s virtual, %s sim I/Os per wall s, ETA %.0f s",
        "#".repeat(full),
        ".".repeat(WIDTH - full),
        100 * f,
        totalPs / 1e12,
        TIoUringFormat.iops(Math.round(wallS <= 0 ? 0 : windowIos / wallS)).substring(5),
        etaS);
  }

  /**
   * The run's stdout, through which every write first clears the bar's line ({@link #watch}); the
   * bar comes back at its next turn.
   */
  public static final class Guarded extends java.io.OutputStream {
    private final java.io.OutputStream out;
    private volatile Progress progress;

    public Guarded(java.io.OutputStream out) {
      this.out = out;
    }

    /** From now on, writes clear {@code p}'s line first. */
    public void watch(Progress p) {
      progress = p;
    }

    @Override
    public void write(int b) throws java.io.IOException {
      Progress p = progress;
      if (p != null) {
        p.clear();
      }
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      Progress p = progress;
      if (p != null) {
        p.clear();
      }
      out.write(b, off, len);
    }

    @Override
    public void flush() throws java.io.IOException {
      out.flush();
    }
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
      clear();
    }
  }
}

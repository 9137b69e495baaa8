package blksim.loadgen.cli;

import blksim.config.BlksimSettings;
import blksim.config.Scenario;
import blksim.loadgen.report.RunDirectory;
import blksim.loadgen.report.RunReport;
import blksim.loadgen.sweep.PointKey;
import blksim.loadgen.sweep.PointResult;
import blksim.loadgen.sweep.PointStore;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Computes one sweep point from its key alone: its resolved configuration read back as a scenario,
 * run, and its run directory put in the store. Wherever it runs (this process or a worker of a
 * cluster), the same key gives the same files.
 */
public final class PointRunner {
  private PointRunner() {}

  /** The settings of a point, from the configuration its key holds. */
  public static BlksimSettings settings(PointKey key) {
    return new Scenario().hocon(key.config(), "sweep point " + key.hex()).settings();
  }

  /**
   * Runs {@code key}'s point into {@code store} and returns its figures.
   *
   * @throws Failed naming what went wrong when the run failed; nothing is stored then
   */
  public static PointResult compute(PointKey key, PointStore store, boolean replace) {
    return compute(key, store, store.scratch(key), replace);
  }

  /**
   * Runs {@code key}'s point into {@code scratch}, a directory of its own, and moves it into {@code
   * store}.
   */
  public static PointResult compute(PointKey key, PointStore store, Path scratch, boolean replace) {
    BlksimSettings settings = settings(key);
    RunDirectory dir = RunDirectory.open(scratch, settings).as("sweep", "");
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    RunReport r;
    try {
      r = Runner.run(settings, quiet, false, dir);
    } catch (Runner.Failed f) {
      throw new Failed(f.getMessage());
    }
    try {
      dir.write(r);
      store.commit(key, scratch, replace);
      return store.result(key);
    } catch (IOException e) {
      throw new UncheckedIOException("writing point " + key.hex(), e);
    }
  }

  /** A point whose run failed: the message says why. */
  public static final class Failed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failed(String why) {
      super(why);
    }
  }
}

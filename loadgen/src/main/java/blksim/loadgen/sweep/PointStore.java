package blksim.loadgen.sweep;

import blksim.config.ConfigError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A sweep's computed points: {@code DIR/points/KEY/}, one run directory a key ({@link PointKey}). A
 * point is written beside its place and moved there whole once every file is in, so that a sweep
 * stopped by Ctrl-C or a crash leaves whole points or none, and the next one resumes.
 */
public final class PointStore {
  private static final String TEMP = ".partial-";
  private static final String DONE = "summary.json";

  private final Path points;
  private final AtomicLong temps = new AtomicLong();

  private PointStore(Path points) {
    this.points = points;
  }

  /** The store under {@code out}, created if need be; what an interrupted sweep left is cleared. */
  public static PointStore open(Path out) {
    Path points = out.resolve("points");
    try {
      Files.createDirectories(points);
      try (DirectoryStream<Path> left = Files.newDirectoryStream(points, TEMP + "*")) {
        for (Path p : left) {
          delete(p);
        }
      }
    } catch (IOException e) {
      throw new ConfigError("--out " + out + ": cannot write there: " + e.getMessage());
    }
    return new PointStore(points);
  }

  /** Where {@code key}'s run directory is, computed or not. */
  public Path dir(PointKey key) {
    return points.resolve(key.hex());
  }

  /** Whether {@code key} has been computed. */
  public boolean has(PointKey key) {
    return Files.isRegularFile(dir(key).resolve(DONE));
  }

  /** The figures of a computed point. */
  public PointResult result(PointKey key) throws IOException {
    return PointResult.ofSummary(Files.readString(dir(key).resolve(DONE), StandardCharsets.UTF_8));
  }

  /** A fresh directory to compute {@code key} in, to be handed to {@link #commit}. */
  public Path scratch(PointKey key) {
    return points.resolve(
        TEMP + key.hex() + "-" + ProcessHandle.current().pid() + "-" + temps.incrementAndGet());
  }

  /**
   * Puts the point computed in {@code scratch} in its place; if it is there already (computed
   * twice, with the same bytes), the copy is dropped. With {@code replace}, an old one is replaced.
   */
  public void commit(PointKey key, Path scratch, boolean replace) throws IOException {
    Path dir = dir(key);
    if (replace && Files.exists(dir)) {
      Path old = points.resolve(TEMP + "old-" + key.hex() + "-" + temps.incrementAndGet());
      Files.move(dir, old, StandardCopyOption.ATOMIC_MOVE);
      delete(old);
    }
    try {
      Files.move(scratch, dir, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException e) {
      delete(scratch);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot move a point into place at once on this file system", e);
    }
  }

  /** Deletes {@code p} and everything under it. */
  public static void deleteTree(Path p) throws IOException {
    delete(p);
  }

  static void delete(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> all = Files.walk(p)) {
      for (Path f : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(f);
      }
    }
  }
}

package blksim.loadgen.fuzz;

import blksim.config.ConfigError;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Builds blksim as it was at another commit, for {@code blksim fuzz --against REV}: the commit's
 * tree is exported with {@code git archive} into the user's cache, {@code
 * ~/.cache/blksim/against/HASH}, and built there with its own Maven wrapper, tests skipped (in a
 * folder of its own, renamed into place when done). A folder already built is used again.
 */
public final class OtherBuild {
  private OtherBuild() {}

  /** The jar of commit {@code rev} of the repository that holds {@code workDir}. */
  public static Path jarOf(String rev, Path workDir, PrintStream progress) {
    String top = git(workDir, "rev-parse", "--show-toplevel");
    if (top == null) {
      throw new ConfigError(
          "--against " + rev + ": " + workDir + " is not inside a git repository");
    }
    String hash = git(workDir, "rev-parse", "--verify", "--quiet", rev + "^{commit}");
    if (hash == null) {
      throw new ConfigError("--against " + rev + ": not a commit of " + top);
    }
    Path cache = Path.of(System.getProperty("user.home"), ".cache", "blksim", "against");
    Path dir = cache.resolve(hash);
    Path jar = dir.resolve("loadgen/target/blksim.jar");
    if (Files.isRegularFile(jar)) {
      return jar;
    }
    progress.println("fuzz: building " + rev + " (" + hash.substring(0, 12) + ") into " + dir);
    try {
      Files.createDirectories(cache);
      // Built in a folder of its own, then renamed into place: two runs at once never share one.
      Path work = Files.createTempDirectory(cache, hash.substring(0, 12) + ".");
      Path log = work.resolve("build.log");
      Path tar = work.resolve("tree.tar");
      step(
          rev,
          log,
          new ProcessBuilder(
              "git", "-C", top, "archive", "--format=tar", "-o", tar.toString(), hash),
          "git archive");
      step(
          rev,
          log,
          new ProcessBuilder("tar", "-x", "-f", tar.toString(), "-C", work.toString()),
          "tar");
      step(
          rev,
          log,
          new ProcessBuilder("sh", "./mvnw", "-q", "-B", "-Dmaven.test.skip=true", "package")
              .directory(work.toFile()),
          "the build");
      if (!Files.isRegularFile(work.resolve("loadgen/target/blksim.jar"))) {
        throw new ConfigError("--against " + rev + ": the build made no blksim.jar; see " + log);
      }
      try {
        Files.move(work, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (java.nio.file.FileAlreadyExistsException
          | java.nio.file.DirectoryNotEmptyException e) {
        // another run built it meanwhile: use that one
      }
      return Files.isRegularFile(jar) ? jar : work.resolve("loadgen/target/blksim.jar");
    } catch (IOException e) {
      throw new ConfigError(
          "--against " + rev + ": cannot build in " + cache + ": " + e.getMessage());
    }
  }

  /** Runs one step of the build, its output appended to {@code log}; a failure is bad input. */
  private static void step(String rev, Path log, ProcessBuilder pb, String what)
      throws IOException {
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (run(pb) != 0) {
      throw new ConfigError("--against " + rev + ": " + what + " failed; see " + log);
    }
  }

  private static String git(Path dir, String... args) {
    List<String> cmd = new java.util.ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return p.waitFor() == 0 && !out.isEmpty() ? out : null;
    } catch (IOException e) {
      throw new ConfigError("--against: cannot run git: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static int run(ProcessBuilder pb) throws IOException {
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Process p = pb.start();
    try {
      return p.waitFor();
    } catch (InterruptedException e) {
      p.destroy();
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}

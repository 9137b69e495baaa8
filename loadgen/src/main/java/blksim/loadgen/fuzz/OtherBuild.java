package blksim.loadgen.fuzz;

import blksim.config.ConfigError;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Builds blksim as it was at another commit, for {@code blksim fuzz --against REV}: the commit's
 * tree is exported with {@code git archive} into a folder of the system's temporary directory named
 * by its hash, and built there with its own Maven wrapper, tests skipped. A folder already built is
 * used again.
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
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "blksim-against-" + hash);
    Path jar = dir.resolve("loadgen/target/blksim.jar");
    if (Files.isRegularFile(jar)) {
      return jar;
    }
    progress.println("fuzz: building " + rev + " (" + hash.substring(0, 12) + ") in " + dir);
    try {
      Files.createDirectories(dir);
      Path log = dir.resolve("build.log");
      int archived =
          run(
              new ProcessBuilder(
                      "sh",
                      "-c",
                      "git -C \"$0\" archive --format=tar \"$1\" | tar -x -C \"$2\"",
                      top,
                      hash,
                      dir.toString())
                  .redirectErrorStream(true)
                  .redirectOutput(log.toFile()));
      if (archived != 0) {
        throw new ConfigError("--against " + rev + ": git archive failed; see " + log);
      }
      int built =
          run(
              new ProcessBuilder("sh", "./mvnw", "-q", "-B", "-Dmaven.test.skip=true", "package")
                  .directory(dir.toFile())
                  .redirectErrorStream(true)
                  .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())));
      if (built != 0 || !Files.isRegularFile(jar)) {
        throw new ConfigError("--against " + rev + ": the build failed; see " + log);
      }
      return jar;
    } catch (IOException e) {
      throw new ConfigError(
          "--against " + rev + ": cannot build in " + dir + ": " + e.getMessage());
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
    try {
      return pb.start().waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}

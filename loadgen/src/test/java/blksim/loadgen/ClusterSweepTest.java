package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sweep on a cluster of separate JVMs on loopback, with TLS: a coordinator and two workers, one
 * of them killed with SIGKILL mid-sweep, give every point byte for byte as the local sweep does; a
 * fourth JVM with a key store of its own never joins.
 */
class ClusterSweepTest {
  private static final String PASSWORD = "blksim-test-only";
  private static final long WAIT_S = 240;

  @TempDir Path tmp;

  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stopAll() {
    started.forEach(Process::destroyForcibly);
  }

  @Test
  void aKilledWorkerLosesNothingAndAStrangerCannotJoin() throws Exception {
    Path cluster = keyStore("cluster");
    Path stranger = keyStore("stranger");
    Path sweep = tmp.resolve("s.conf");
    Files.writeString(
        sweep,
        "base = \"io_uring -d32 -s32 -c32 -b512 -p1 /dev/nullb0\"\n"
            + "set { run.runtime = 100ms, engine.kind = sequential }\n"
            + "axes {\n"
            + "  cpus = \"1..3\"\n"
            + "  \"-d\" = [8, 16, 32, 64]\n"
            + "}\n");
    String at = "127.0.0.1:" + freePort();
    Path out = tmp.resolve("cluster.out");
    Process coordinator =
        start(
            "coordinator",
            "sweep",
            sweep.toString(),
            "--out",
            out.toString(),
            "--cluster",
            at,
            "--key-store",
            cluster.toString());
    awaitLine("coordinator", "coordinating at " + at);
    Process doomed =
        start("worker1", "worker", "--join", at, "--slots", "1", "--key-store", cluster.toString());
    Process survivor =
        start("worker2", "worker", "--join", at, "--slots", "1", "--key-store", cluster.toString());
    Process intruder =
        start(
            "intruder", "worker", "--join", at, "--slots", "1", "--key-store", stranger.toString());
    awaitLine("worker1", "joined the sweep");
    // a few points in, so that both workers are computing one when worker1 dies
    awaitCount("coordinator", " in (", 3);
    doomed.destroyForcibly(); // SIGKILL
    assertTrue(doomed.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, doomed.exitValue(), "killed by SIGKILL");
    assertTrue(
        coordinator.waitFor(WAIT_S, TimeUnit.SECONDS),
        "the coordinator finished: " + log("coordinator"));
    assertEquals(0, coordinator.exitValue(), log("coordinator"));
    assertTrue(count(log("coordinator"), " in (") == 12, log("coordinator"));
    assertTrue(survivor.waitFor(60, TimeUnit.SECONDS), "the survivor left: " + log("worker2"));
    assertEquals(0, survivor.exitValue(), log("worker2"));
    assertTrue(intruder.isAlive(), "the stranger is still trying");
    assertFalse(log("intruder").contains("joined"), log("intruder"));
    intruder.destroyForcibly();

    Path local = tmp.resolve("local.out");
    Blksim l = Blksim.run("sweep", sweep.toString(), "--out", local.toString());
    assertEquals(0, l.status(), l.err());
    for (String f : List.of("results.csv", "results.json", "report.html")) {
      assertEquals(Files.readString(local.resolve(f)), Files.readString(out.resolve(f)), f);
    }
    List<Path> points;
    try (Stream<Path> all = Files.list(local.resolve("points"))) {
      points = all.sorted().toList();
    }
    assertEquals(12, points.size());
    for (Path p : points) {
      Path there = out.resolve("points").resolve(p.getFileName());
      for (String f :
          List.of(
              "config.conf",
              "latency.hgrm",
              "latency.hlog",
              "profile.txt",
              "summary.csv",
              "report.html")) {
        assertEquals(
            Files.readString(p.resolve(f)),
            Files.readString(there.resolve(f)),
            p.getFileName() + "/" + f);
      }
    }
    try (Stream<Path> all = Files.list(out.resolve("points"))) {
      assertEquals(12, all.count(), "no half-written point left");
    }
  }

  /** A PKCS12 key store with one self-signed key pair, made by the JDK's keytool. */
  private Path keyStore(String name) throws Exception {
    Path ks = tmp.resolve(name + ".p12");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "blksim",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "30",
                "-dname",
                "CN=" + name,
                "-storetype",
                "PKCS12",
                "-keystore",
                ks.toString(),
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD)
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve(name + ".keytool").toFile())
            .start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), Files.readString(tmp.resolve(name + ".keytool")));
    return ks;
  }

  private Process start(String name, String... args) throws IOException {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+IgnoreUnrecognizedVMOptions",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                classPath,
                "blksim.loadgen.Main"));
    cmd.addAll(List.of(args));
    ProcessBuilder b =
        new ProcessBuilder(cmd)
            .redirectOutput(tmp.resolve(name + ".out").toFile())
            .redirectError(tmp.resolve(name + ".err").toFile());
    b.environment().put("BLKSIM_KEY_STORE_PASSWORD", PASSWORD);
    b.environment().put("BLKSIM_PROGRESS", "0");
    Process p = b.start();
    started.add(p);
    return p;
  }

  private String log(String name) throws IOException {
    Path f = tmp.resolve(name + ".err");
    return Files.exists(f) ? Files.readString(f) : "";
  }

  private void awaitLine(String name, String text) throws Exception {
    awaitCount(name, text, 1);
  }

  private void awaitCount(String name, String text, int n) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
    while (count(log(name), text) < n) {
      if (System.nanoTime() > end) {
        throw new AssertionError(
            name + " never printed " + text + " " + n + " times: " + log(name));
      }
      Thread.sleep(100);
    }
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}

package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line's successful paths: output shape, JSON, books, help. */
class CommandTest {
  private static final String[] SHORT = {
    "io_uring",
    "-d16",
    "-s8",
    "-c8",
    "-b512",
    "-p1",
    "--set",
    "run.runtime=20ms",
    "--engine",
    "sequential",
    "/dev/nullb0"
  };

  @Test
  void outputShouldHaveTIoUringsShapeThenTheSummary() {
    Blksim r = Blksim.run(SHORT);
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.lines();
    assertEquals("submitter=0, tid=1000, file=/dev/nullb0, nfiles=1, node=-1", lines.get(0));
    assertEquals("polled=1, fixedbufs=1, register_files=1, buffered=0, QD=16", lines.get(1));
    assertEquals("Engine=io_uring, sq_ring=16, cq_ring=16", lines.get(2));
    for (int i = 3; i < 13; i++) {
      // -d16 -s8: a submit-only call, then one that reaps 16; an interval can end between them
      assertTrue(
          lines.get(i).matches("IOPS=\\d+\\.\\d\\dM, BW=\\d+MiB/s, IOS/call=8/[789]"),
          lines.get(i));
    }
    assertEquals("Exiting on timeout", lines.get(13));
    assertTrue(lines.get(14).startsWith("Maximum IOPS="), lines.get(14));
    assertTrue(r.out().contains("books       balanced"), r.out());
    assertTrue(
        lines
            .get(lines.size() - 2)
            .matches("wall \\d+\\.\\d\\d s, .* simulated I/Os per wall second"),
        lines.get(lines.size() - 2));
  }

  /**
   * A thread that hangs in io_cqring_wait took its SQEs in a call that never returns: they count as
   * submitted, the call as made, and t/io_uring's IOS/call of that call as its submissions.
   */
  @Test
  void aHangsSummaryShouldCountTheCallThatNeverReturned() {
    Blksim r =
        Blksim.run(
            "io_uring",
            "--engine",
            "sequential",
            "--set",
            "run.runtime=10ms",
            "-d128",
            "-s77",
            "-c124",
            "-p0",
            "--null-blk",
            "hw_queue_depth=256",
            "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("submitter0  stopped: hangs in io_cqring_wait"), r.out());
    assertTrue(
        r.out()
            .contains(
                "  I/Os        77 submitted, 77 completed (0 reaped, 0 at ring teardown, 77 left in"
                    + " the CQ ring), 1 io_uring_enter calls (1 never returned), IOS/call=77/0\n"),
        r.out());
    assertTrue(r.out().contains("books       balanced"), r.out());
    // t/io_uring's main thread goes on to the runtime, then says so, before it blocks joining
    List<String> lines = r.lines();
    int hang =
        lines.indexOf(lines.stream().filter(l -> l.startsWith("hangs in")).findFirst().get());
    assertEquals(List.of("IOPS=0, BW=0MiB/s, IOS/call=-1/-1"), lines.subList(hang + 1, hang + 2));
    assertEquals(10, lines.stream().filter(l -> l.startsWith("IOPS=0, BW=0MiB/s")).count());
    assertTrue(r.out().contains("Exiting on timeout\nMaximum IOPS=0\n"), r.out());
    assertTrue(r.out().contains("time of each CPU over 0.010 s"), r.out());
  }

  @Test
  void nopsShouldRunWithoutAFileAndPrintNoBandwidth() {
    // t/io_uring of 2021: -N1 opens no file; its status lines carry no BW
    Blksim r = Blksim.run("io_uring", "-N1", "-d32", "-s32", "-c32", "--set", "run.runtime=2ms");
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.lines();
    assertTrue(lines.get(3).matches("IOPS=\\d+\\.\\d\\dM, IOS/call=32/32"), lines.get(3));
    assertTrue(r.out().contains("IORING_OP_NOP (-N1) on a ring without IOPOLL"), r.out());
    assertTrue(r.out().contains(" -n1 -N1 /dev/nullb0 for "), "the summary names the loop");
    assertFalse(r.out().contains("bandwidth"), r.out());
    assertTrue(r.out().contains(" io_issue_sqe\n"), r.out());
    assertFalse(r.out().contains(" io_read\n"), r.out());
  }

  @Test
  void syncReadsShouldPrintPreadv2sEngineAndOneReadPerCall() {
    Blksim r = Blksim.run("io_uring", "-S1", "-b512", "--set", "run.runtime=1ms", "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.lines();
    assertEquals("Engine=preadv2", lines.get(2));
    // s->calls++ before each preadv2, s->done++ after: the first interval ends with one out
    assertTrue(lines.get(3).endsWith("IOS/call=0/0"), lines.get(3));
    assertTrue(
        lines.get(4).matches("IOPS=\\d+\\.\\d\\dM, BW=\\d+MiB/s, IOS/call=1/0"), lines.get(4));
    assertTrue(r.out().contains(" preadv2 calls, "), r.out());
    assertTrue(r.out().contains(" -n1 -S1 /dev/nullb0 for "), "the summary names the loop");
    assertTrue(r.out().contains(" __blkdev_direct_IO_simple\n"), r.out());
  }

  @Test
  void aioShouldSayWhatItTurnsOffAndPrintItsEngine() {
    Blksim r = Blksim.run("io_uring", "-a1", "-d32", "--set", "run.runtime=1ms", "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.lines();
    assertEquals("aio does not support polled IO", lines.get(1));
    assertEquals("aio does not support registered files or buffers", lines.get(2));
    assertEquals("polled=0, fixedbufs=0, register_files=0, buffered=0, QD=32", lines.get(3));
    assertEquals("Engine=aio", lines.get(4));
    assertTrue(lines.get(6).endsWith("IOS/call=16/16"), lines.get(6));
    assertTrue(r.out().contains(" left in the aio ring), "), r.out());
    assertTrue(r.out().contains(" -n1 -a1 /dev/nullb0 for "), "the summary names the loop");
  }

  @Test
  void theModelLineShouldSayWhichSchedulerOneHardwareQueueRuns() {
    Blksim one =
        Blksim.run(
            "io_uring",
            "-d8",
            "-r1",
            "--set",
            "run.runtime=50us",
            "--kernel",
            "5.15",
            "/dev/nullb0");
    assertEquals(0, one.status(), one.err());
    assertTrue(
        one.out().contains("mq-deadline (one hardware queue: elevator_get_default)"), one.out());
    assertTrue(
        one.out().contains("through mq-deadline, each with one of 64 driver tags"), one.out());
    assertTrue(
        one.out()
            .contains(
                "ends requests in BLOCK_SOFTIRQ, which ksoftirqd runs where the thread next schedules"),
        one.out());
    // three threads' batches of 32 at once on 64 driver tags, ended in queue_rq: the frees
    // restart the queue on kblockd of the freeing CPU
    Blksim inline =
        Blksim.run(
            "io_uring",
            "-p0",
            "-n3",
            "-d32",
            "--cpus",
            "3",
            "--set",
            "run.runtime=1ms",
            "--kernel",
            "5.15",
            "--null-blk",
            "irqmode=0",
            "/dev/nullb0");
    assertEquals(0, inline.status(), inline.err());
    assertTrue(inline.out().contains("waited on hctx->dispatch"), inline.out());
    assertTrue(inline.out().contains("kworker"), "kblockd's CPU time: " + inline.out());
    // with timers the wait is modelled: kblockd restarts the queue from the timer's interrupt
    Blksim timer =
        Blksim.run(
            "io_uring",
            "-p0",
            "-d128",
            "--set",
            "run.runtime=1ms",
            "--kernel",
            "5.15",
            "--null-blk",
            "irqmode=2 completion_nsec=100000",
            "/dev/nullb0");
    assertEquals(0, timer.status(), timer.err());
    assertTrue(timer.out().contains("waited on hctx->dispatch"), timer.out());
    assertTrue(timer.out().contains("kworker"), "kblockd's CPU time: " + timer.out());
    Blksim noSched =
        Blksim.run(
            "io_uring",
            "-d8",
            "--set",
            "run.runtime=50us",
            "--kernel",
            "5.15",
            "--null-blk",
            "no_sched=1 irqmode=0",
            "/dev/nullb0");
    assertFalse(noSched.out().contains("mq-deadline"), noSched.out());
    assertFalse(noSched.out().contains("BLOCK_SOFTIRQ"), noSched.out());
    assertFalse(Blksim.run(SHORT).out().contains("mq-deadline"), "two queues: none is the default");
    Blksim none =
        Blksim.run(
            "io_uring",
            "-d8",
            "--set",
            "run.runtime=50us",
            "--kernel",
            "5.15",
            "--set",
            "queue.scheduler=none",
            "/dev/nullb0");
    assertFalse(none.out().contains("mq-deadline"), "echo none > scheduler: what blksim runs");
  }

  @Test
  void theCpuTableShouldShowTheKworkerOnlyWhereItRan() {
    String header = "cpu  thread         IOPS    ns/IO     submit       poll        irq  lock wait";
    Blksim b1 = Blksim.run(SHORT);
    assertTrue(b1.out().contains(header + "       idle\n"), b1.out());
    String[] b0 = new String[SHORT.length + 3];
    System.arraycopy(SHORT, 0, b0, 0, SHORT.length - 1);
    b0[SHORT.length - 1] = "-B0";
    b0[SHORT.length] = "--set";
    b0[SHORT.length + 1] = "interference.vmstat.interval=5ms";
    b0[SHORT.length + 2] = "/dev/nullb0";
    Blksim r = Blksim.run(b0);
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains(header + "    kworker       idle\n"), r.out());
    assertTrue(r.out().contains(" vmstat_update\n"), r.out());
  }

  @Test
  void eachThreadShouldPrintItsOwnSubmitterLineWithItsFiles() {
    Blksim r =
        Blksim.run(
            "io_uring",
            "-n3",
            "-d16",
            "--cpus",
            "6",
            "--set",
            "run.runtime=1ms",
            "--engine",
            "sequential",
            "--null-blk",
            "nr_devices=2",
            "/dev/nullb0",
            "/dev/nullb1");
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.lines();
    // main: threads_per_f = 3 / 2 = 1, one thread left over: nullb0 to threads 0 and 1, nullb1 to 2
    assertEquals("submitter=0, tid=1000, file=/dev/nullb0, nfiles=1, node=-1", lines.get(0));
    assertEquals("submitter=1, tid=1001, file=/dev/nullb0, nfiles=1, node=-1", lines.get(1));
    assertEquals("submitter=2, tid=1002, file=/dev/nullb1, nfiles=1, node=-1", lines.get(2));
    assertEquals("polled=1, fixedbufs=1, register_files=1, buffered=0, QD=16", lines.get(3));
    assertEquals("Engine=io_uring, sq_ring=16, cq_ring=16", lines.get(4));
    Blksim two =
        Blksim.run(
            "io_uring",
            "-n1",
            "-d16",
            "--set",
            "run.runtime=1ms",
            "--null-blk",
            "nr_devices=2",
            "/dev/nullb0",
            "/dev/nullb1");
    assertEquals("submitter=0, tid=1000, file=/dev/nullb1, nfiles=2, node=-1", two.lines().get(0));
  }

  @Test
  void kernel515ShouldSayItsNullBlkHasNoPollQueues() {
    Blksim r =
        Blksim.run(
            "io_uring", "-d16", "--kernel", "5.15", "--set", "run.runtime=1ms", "/dev/nullb0");
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("null_blk submit_queues=1 no poll queues (before 5.16)"), r.out());
    assertTrue(r.out().contains("nullb0-hctx0:"), "the default queue: " + r.out());
  }

  @Test
  void trackLatenciesShouldAddTIoUringsPercentileBlock() {
    String[] args =
        List.of(
                "io_uring",
                "-t1",
                "-d16",
                "-s8",
                "-c8",
                "-b512",
                "--set",
                "run.runtime=5ms",
                "--engine",
                "sequential",
                "/dev/nullb0")
            .toArray(String[]::new);
    Blksim r = Blksim.run(args);
    assertEquals(0, r.status(), r.err());
    assertTrue(
        r.out().contains("Maximum IOPS=")
            && r.out()
                .contains(
                    "\n1000: Latency percentiles:\n"
                        + "    percentiles (nsec):\n     |  1.0000th=["),
        r.out());
  }

  @Test
  void jsonShouldCarryTheFiguresOfTheRun(@TempDir Path dir) throws IOException {
    Path json = dir.resolve("run.json");
    String[] args =
        List.of(
                "io_uring",
                "-d16",
                "-s8",
                "-c8",
                "-b512",
                "--set",
                "run.runtime=20ms",
                "--engine",
                "sequential",
                "--json",
                json.toString(),
                "/dev/nullb0")
            .toArray(String[]::new);
    Blksim r = Blksim.run(args);
    assertEquals(0, r.status(), r.err());
    String text = Files.readString(json);
    for (String key :
        List.of(
            "\"iops\": ",
            "\"bw_bytes\": ",
            "\"ios_completed\": ",
            "\"latency_ns\": {\"p50\": ",
            "\"p90\": ",
            "\"p99\": ",
            "\"p99.9\": ",
            "\"max\": ",
            "\"virtual_ns\": 20000000,",
            "\"sim_ios_per_wall_sec\": ",
            "\"balanced\": true")) {
      assertTrue(text.contains(key), key + " in " + text);
    }
    String iops =
        r.out()
            .lines()
            .filter(l -> l.startsWith("  IOPS"))
            .findFirst()
            .orElseThrow()
            .split("\\s+")[2];
    assertTrue(text.contains("\"iops\": " + iops + ","), iops + " in " + text);
  }

  @Test
  void brokenBooksShouldEndWithExit3AndOneLine() {
    for (String what : List.of("leak-bio", "leak-tag")) {
      String[] args =
          List.of(
                  "io_uring",
                  "-d16",
                  "-s8",
                  "-c8",
                  "-b512",
                  "--set",
                  "run.runtime=2ms",
                  "--set",
                  "books.break=" + what,
                  "--engine",
                  "sequential",
                  "/dev/nullb0")
              .toArray(String[]::new);
      Blksim r = Blksim.run(args);
      assertEquals(3, r.status(), what);
      assertEquals(1, r.errLines().size(), r.err());
      assertTrue(r.err().startsWith("blksim: the books do not balance: "), r.err());
      assertTrue(r.out().contains("books       NOT balanced: "), r.out());
    }
  }

  @Test
  void helpShouldPrintUsageAndExit0() {
    Blksim h = Blksim.run("io_uring", "-h");
    assertEquals(0, h.status());
    assertTrue(
        h.out()
            .startsWith(
                "blksim io_uring [options] -- [filenames]\n -d <int>  : IO Depth, default 128\n"),
        h.out());
    for (String option : new String[] {"--cpus", "--taskset", "--profile", "--kernel", "--patch"}) {
      assertTrue(h.out().contains("\n " + option + " "), option + " in io_uring -h");
    }
    Blksim top = Blksim.run("--help");
    assertEquals(0, top.status());
    assertTrue(
        top.out().contains("io_uring") && top.out().contains("run") && top.out().contains("bench"));
    assertTrue(top.out().contains("limits"), top.out());
    for (String command : new String[] {"run", "compare", "bench", "limits"}) {
      Blksim c = Blksim.run(command, "-h");
      assertEquals(0, c.status(), command);
      assertTrue(c.out().startsWith("Usage: blksim " + command + " [-h]"), c.out());
      assertEquals("", c.err(), command);
    }
  }

  @Test
  void ioUringShouldTakeLongHelpAsItTakesH() {
    Blksim h = Blksim.run("io_uring", "-h");
    Blksim help = Blksim.run("io_uring", "--help");
    assertEquals(0, help.status(), help.err());
    assertEquals(h.out(), help.out());
    for (String option :
        new String[] {"--out", "--json", "--csv", "--patch-file", "--profile-file", "--help"}) {
      assertTrue(h.out().contains(" " + option + " "), option + " in io_uring -h: " + h.out());
    }
  }

  @Test
  void helpShouldListEveryPatchKernelAndProfileThereIs() {
    String patches = blksim.config.Patch.names();
    String kernels =
        String.join(", ", new java.util.TreeSet<>(blksim.config.KernelSettings.PRESETS.keySet()));
    String profiles =
        String.join(
            ", ",
            new java.util.TreeSet<>(
                com.typesafe.config.ConfigFactory.defaultReference()
                    .getObject("blksim.profiles")
                    .keySet()));
    String ioUring = Blksim.run("io_uring", "-h").out().replaceAll("\\s+", " ");
    for (String list : List.of(patches, kernels, profiles)) {
      assertTrue(ioUring.contains(list), list + " in io_uring -h: " + ioUring);
    }
    for (String command : new String[] {"run", "compare"}) {
      String help = Blksim.run(command, "--help").out().replaceAll("\\s+", " ");
      for (String list : List.of(patches, kernels, profiles)) {
        assertTrue(help.contains(list), list + " in " + command + " --help: " + help);
      }
    }
  }

  @Test
  void benchShouldScaleOverCpuCountsAndGiveEachRatio() {
    Blksim r = Blksim.run("bench", "--runs", "1", "--scale", "1,2", "--set", "run.runtime=1ms");
    assertEquals(0, r.status(), r.err());
    assertTrue(
        r.out()
            .contains(
                "at each CPU count N: --cpus N -nN --null-blk 'submit_queues=N poll_queues=N'"),
        r.out());
    for (String engine : List.of("akka", "sequential")) {
      assertTrue(
          java.util.regex.Pattern.compile("\\n   1  " + engine + "\\s+\\S+\\s+1\\.00\\n")
              .matcher(r.out())
              .find(),
          "the first count is the reference of " + engine + ": " + r.out());
      assertTrue(
          java.util.regex.Pattern.compile("\\n   2  " + engine + "\\s+\\S+\\s+\\d+\\.\\d\\d\\n")
              .matcher(r.out())
              .find(),
          engine + " at 2 CPUs: " + r.out());
    }
    assertTrue(r.out().contains("   2  sequential    1"), "2 CPUs ran: " + r.out());
  }
}

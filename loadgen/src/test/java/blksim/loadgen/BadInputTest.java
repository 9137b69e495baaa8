package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input of every kind: one line on stderr naming it, nothing on stdout, exit status 2. */
class BadInputTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "io_uring -Q1 /dev/nullb0                               | Unknown option: '-Q1'",
        "io_uring -d abc /dev/nullb0                            | '-d'",
        "io_uring -b 4k /dev/nullb0                             | -b 4k: not a number; did you mean -b4096?",
        "io_uring -b 64K /dev/nullb0                            | -b 64K: not a number; did you mean -b65536?",
        "io_uring -d 1k /dev/nullb0                             | -d 1k: not a number; did you mean -d1024?",
        "io_uring -d ３２ /dev/nullb0                            | -d ３２: not a number: t/io_uring reads ASCII digits 0-9 only",
        "io_uring -p １ /dev/nullb0                              | -p １: not a number",
        "io_uring -T 99999999999999999999 /dev/nullb0           | -T 99999999999999999999: out of range",
        "io_uring -d 0 /dev/nullb0                              | -d 0: IO depth must be 1 to 32768",
        "io_uring -n 0 /dev/nullb0                              | Threads must be non-zero",
        "io_uring -r 0 /dev/nullb0                              | -r 0",
        "io_uring -d32                                          | No files specified",
        "io_uring -D1 /dev/nullb0                               | dma_map was removed",
        "io_uring -d32 /dev/sda                                 | /dev/sda: no such device",
        "io_uring -b 100 -d32 /dev/nullb0                       | multiple of its logical block size",
        "io_uring -d32 -p0 -O0 /dev/nullb0                      | -O0 -p0: buffered I/O",
        "io_uring -d32 --patch speedup /dev/nullb0              | unknown patch speedup",
        "io_uring -d32 --kernel 4.19 /dev/nullb0                | accepted 5.15, 5.16, 5.17, 5.18, 5.19, 6.1",
        "io_uring -d32 /dev/dm-0                                | /dev/dm-0: no such device",
        "io_uring -d32 --profile zen9 /dev/nullb0               | known begunkov-2021",
        "compare -- io_uring -d32 /dev/nullb0                   | give --patch LIST",
        "compare --a-set nokey -- io_uring -d32 /dev/nullb0     | --a-set 'nokey': expected path=value",
        "compare --patch bio-init-compound -- io_uring --json x.json /dev/nullb0 | --json after -- would apply to A and B alike",
        "compare --a-set io-uring.depth=4 -- io_uring --patch bio-init-compound /dev/nullb0 | --patch after -- would apply",
        "compare --a-set io-uring.depth=4 -- io_uring --out x /dev/nullb0 | --out after -- would apply to A and B alike; give it before --",
        "io_uring -d32 --json /nonexistent/dir/x.json /dev/nullb0 | --json /nonexistent/dir/x.json: cannot write: no such directory",
        "io_uring -d32 --json /dev/full /dev/nullb0             | --json /dev/full: cannot write: No space left on device (it is /dev/full",
        "fuzz --count 1 --summary /dev/full                     | --summary /dev/full: cannot write: No space left on device",
        "compare --json /nonexistent/x.json --patch bio-init-compound -- io_uring /dev/nullb0 | --json /nonexistent/x.json: cannot write",
        "io_uring -d32 --csv /nonexistent/dir/x.csv /dev/nullb0  | --csv /nonexistent/dir/x.csv: cannot write: no such directory",
        "io_uring -d32 --csv /dev/full /dev/nullb0              | --csv /dev/full: cannot write: No space left on device (it is /dev/full",
        "io_uring -d32 --csv . /dev/nullb0                      | --csv .: cannot write: it is a directory",
        "run ../config/scenarios/default.conf --csv /dev/full   | --csv /dev/full: cannot write: No space left on device",
        "compare --csv /dev/full --patch bio-init-compound -- io_uring /dev/nullb0 | --csv /dev/full: cannot write: No space left on device",
        "compare --csv /nonexistent/x.csv --profile begunkov-2021,zen2-3970x --patch bio-init-compound -- io_uring /dev/nullb0 | --csv /nonexistent/x.csv: cannot write",
        "compare --patch bio-init-compound -- io_uring --csv x.csv /dev/nullb0 | --csv after -- would apply to A and B alike; give it before --, as compare's (the comparison's CSV)",
        "bench --csv /dev/full                                  | --csv /dev/full: cannot write: No space left on device",
        "compare --b-set io-uring.dept=4 -- io_uring /dev/nullb0 | --b-set io-uring.dept=4: 1: unknown key",
        "compare --runtime 1 -- io_uring -d32 /dev/nullb0       | (options: --patch --patch-file --profile",
        "compare --patch bio-init-compound -- io_uring -Q1      | Unknown option: '-Q1'",
        "compare --patch bio-init-compound -- fio job.fio       | must start with io_uring or run",
        "compare --profile zen2-3970x,zen9 --patch bio-init-compound -- io_uring /dev/nullb0 | zen9 is not a profile: known begunkov-2021, snitzer-2022",
        "compare --profile zen2-3970x,zen2-3970x --patch bio-init-compound -- io_uring /dev/nullb0 | lists zen2-3970x twice",
        "compare --profile zen2-3970x, --patch bio-init-compound -- io_uring /dev/nullb0 | an empty name in the list",
        "io_uring -p0 --null-blk irqmode=2 --null-blk requeue=1,10,0,-1 /dev/nullb0 | and a fault injected (timeout=, requeue=)",
        "io_uring -p1 -d54 -s53 --set null-blk.poll-queues=0 --set null-blk.hw-queue-depth=1 /dev/nullb0 | (io-wq reissuing a bio that is no longer polled, into the scheduler)",
        "io_uring -p1 --set null-blk.poll-queues=0 --set null-blk.irqmode=2 --set null-blk.completion-nsec=2000000 /dev/nullb0 | spinning for an unpolled bio's timer longer than 1000000 ns",
        "io_uring -d32 --set io-uring.dept=4 /dev/nullb0        | did you mean blksim.io-uring.depth?",
        "io_uring -d32 --set engine.kind=threads /dev/nullb0    | akka, sequential",
        "io_uring -d32 --null-blk zoned=1 /dev/nullb0           | does not model yet",
        "io_uring -d32 --null-blk hw_queue_dept=1 /dev/nullb0   | unknown parameter hw_queue_dept",
        "io_uring -d32 --null-blk irqmode=7 /dev/nullb0         | accepted 0 to 2",
        "io_uring -d32 --null-blk irqmode=１ /dev/nullb0         | null_blk: irqmode=１ is not an integer: accepted ASCII digits, decimal, 0x hex or 0 octal",
        "io_uring -d32 --null-blk hw_queue_depth=#40 /dev/nullb0 | null_blk: hw_queue_depth=#40 is not an integer",
        "io_uring -d32 --set engine.dispatcher.type=Bogus /dev/nullb0 | type = 'Bogus' is not accepted: Dispatcher",
        "io_uring -d32 --set engine.dispatcher.executor=bogus /dev/nullb0 | accepted: thread-pool-executor",
        "io_uring -d32 --set engine.dispatcher.thread-pool-executor.fixed-pool-size=0 /dev/nullb0 | accepted 1 to 64",
        "io_uring -d32 --set akka.actor.provider=bogus.Provider /dev/nullb0 | akka.actor.provider is not read",
        "io_uring -d32 --set run.status-interval=1ns /dev/nullb0 | accepted at most 100000",
        "io_uring -d32 --set cpu.submitter-cpus=abc /dev/nullb0  | submitter-cpus = 'abc' is not a list",
        "io_uring -d32 --set cpu.submitter-cpus=[1.5] /dev/nullb0 | submitter-cpus[0] = '1.5' is not a whole number",
        "io_uring -d32 --set io-uring.depth=16.9 /dev/nullb0     | depth = '16.9' is not a whole number",
        "io_uring -d32 --set run.seed=1.5 /dev/nullb0            | seed = '1.5' is not a whole number",
        "io_uring -d32 --set run.seed=18446744073709551616 /dev/nullb0 | is out of range",
        "io_uring -d32 --set run.seed=2^64 /dev/nullb0           | Reserved character '^'",
        "io_uring -d32 --set run.runtime=10 /dev/nullb0          | '10' has no unit",
        "io_uring -d32 --set queue.nomerges=3 /dev/nullb0        | nomerges = '3' is out of range: accepted 0 to 2",
        "io_uring -d32 --set queue.scheduler=mq-deadline /dev/nullb0 | queue.scheduler = mq-deadline on 2 hardware queues: blksim models mq-deadline on one hardware queue only",
        "io_uring -d32 --set queue.scheduler=kyber /dev/nullb0   | queue.scheduler = kyber: an I/O scheduler other than mq-deadline or none is not modelled yet",
        "io_uring -a1 -n3 -d32 --cpus 3 --set queue.scheduler=mq-deadline --set null-blk.poll-queues=0 --set null-blk.irqmode=2 /dev/nullb0 | 96 requests can hold null_blk's 64 driver tags at once",
        "io_uring -d32 --set queue.nr-requests=65 /dev/nullb0    | queue.nr-requests = 65: above null_blk's hw_queue_depth=64 with no scheduler, the kernel answers EINVAL; accepted 4 to 64",
        "io_uring -d32 --set queue.nr-requests=-1 /dev/nullb0    | nr-requests",
        "io_uring -d32 --set queue.scheduler=cfq /dev/nullb0     | cfq is not an I/O scheduler: accepted \"\" (the kernel's default), mq-deadline, none (bfq and kyber are the kernel's too, not modelled yet)",
        "io_uring -d32 --set queue.scheduler=bfq /dev/nullb0     | queue.scheduler = bfq: an I/O scheduler other than mq-deadline or none is not modelled yet",
        "io_uring -d32 --null-blk hw_queue_depth=2 --set queue.nr-requests=2 /dev/nullb0 | queue.nr-requests = 2: null_blk's hw_queue_depth=2 with no scheduler is below 4 (BLKDEV_MIN_RQ), to which the kernel raises any value and then answers EINVAL; accepted only 0, the kernel's",
        "io_uring -d32 --null-blk queue_mode=1 /dev/nullb0       | null_blk queue_mode=1: the legacy request path is gone",
        "io_uring -d32 --null-blk queue_mode=0 /dev/nullb0       | null_blk queue_mode=0 (bio-based) is not modelled yet; only queue_mode=2 (blk-mq) is",
        "run /dev/null                                          | /dev/null: not a regular file (a device, pipe or socket); a scenario file is a text file",
        "run .                                                  | .: a directory, not a scenario file",
        "io_uring -d32 --patch no-turbo /dev/nullb0              | unknown patch turbo: accepted bdev-cache-in-file",
        "io_uring -d32 --set profiles.begunkov-2021.facts.clock-ghz=1e-300 /dev/nullb0 | accepted 0.1 to 20 GHz",
        "io_uring -d32 --set profiles.begunkov-2021.scale=1e300 /dev/nullb0 | accepted 0.001 to 100",
        "io_uring -d32 --set profiles.begunkov-2021.facts.syscall-ns=1e18 /dev/nullb0 | accepted 0 to 1000000 ns",
        "io_uring -d32 --set profiles.begunkov-2021.steps.io_read=1e300 /dev/nullb0 | steps.io_read = '1.0E300' is out of range",
        "io_uring -d32 --set profiles.begunkov-2021.facts.colck-ghz=4 /dev/nullb0 | did you mean clock-ghz?",
        "io_uring -d32 --set profiles.begunkov-2021.steps.io_uring_enter=0 --set profiles.begunkov-2021.facts.syscall-ns=0 /dev/nullb0 | prices a call of io_uring_enter at 0 ns",
        "io_uring -d32 --taskset , /dev/nullb0                   | --taskset ',': '' is not a CPU",
        "io_uring -d32 --null-blk hw_queue_depth /dev/nullb0     | hw_queue_depth needs a value (the kernel answers -EINVAL)",
        "io_uring -d32 --null-blk irqmode /dev/nullb0            | irqmode needs a value",
        "io_uring -d32 /dev/nullb99999999999999999999            | no such device",
        "run missing.conf                                       | missing.conf: no such scenario file",
        "run                                                    | SCENARIO.conf",
        "frobnicate                                             | frobnicate",
        "io_uring -d32 --out /dev/null/x /dev/nullb0            | --out /dev/null/x: cannot write there: Not a directory",
        "io_uring --set interference.tick.hz=10000 /dev/nullb0   | interference.tick.hz = 10000 is not a CONFIG_HZ: accepted 100, 250, 300, 1000",
        "io_uring --set run.runtime=10ms --set run.status-interval=100ns --out never /dev/nullb0 | 100000 status intervals in run.runtime = 10ms, each a set of histograms in latency.hlog; accepted at most 10000 with --out (a status-interval of 1us or more)",
        "bench --out x                                          | bench makes many runs and writes no run directory",
        "bench --runs 0                                         | --runs 0",
        "bench --scale 0                                        | --scale 0: accepted 1 to 1024",
        "fuzz --count 0                                         | --count 0: accepted 1 or more",
        "fuzz --jobs 0                                          | --jobs 0: accepted 1 to 256",
        "fuzz --count x                                         | '--count'",
        "fuzz --against no-such-commit-anywhere                 | not a commit of",
        "fuzz --against-jar no-such.jar                         | no-such.jar: no such file",
        "fuzz --against HEAD --against-jar x.jar                | give one of them, not both",
        "fuzz --set nokey                                       | expected path=value",
        "fuzz --set io-uring.dept=4                             | did you mean blksim.io-uring.depth?",
        "fuzz --check nonsense                                  | expected a command line such as",
        "fuzz --bogus                                           | (options: --count --seed",
        "fuzz --set engine.diverge-on-purpose=maybe             | rather than BOOLEAN",
        "fuzz --from 9223372036854775807 --count 2              | would pass 2^63-1",
        "fuzz --count 1 --summary /nonexistent/dir/x.txt        | --summary /nonexistent/dir/x.txt: cannot write",
      })
  void shouldSayWhatWasWrongOnOneLineAndExit2(String args, String expected) {
    Blksim r = Blksim.run(args.trim().split("\\s+"));
    assertEquals(2, r.status(), r.err());
    assertEquals(1, r.errLines().size(), "one line: " + r.err());
    assertTrue(r.err().contains(expected.trim()), r.err());
    assertEquals("", r.out(), "nothing on stdout");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0 0 linear /dev/nullb0 0              | /dev/dm-0 | dm-0: table line 1 '0 0 linear /dev/nullb0 0': num_sectors 0",
        "0 100 linear /dev/nullb0              | /dev/dm-0 | Invalid argument count: accepted two",
        "0 100 linear /dev/nullb0 -1           | /dev/dm-0 | Invalid device sector -1",
        "0 524288000 linear /dev/nullb0 8      | /dev/dm-0 | nullb0 too small for target",
        "0 100 flakey /dev/nullb0 0 1 1        | /dev/dm-0 | target type flakey is not modelled yet",
        "0 100 bogus                           | /dev/dm-0 | target type bogus is unknown",
        "0 100 linear /dev/nullb0 0;50 50 linear /dev/nullb0 0 | /dev/dm-0 | Gap in table",
        "0 100 linear /dev/dm-0 0              | /dev/dm-0 | dm stacked on dm is not modelled yet",
        "0 100 linear /dev/nullb0 0            | /dev/dm-1 | /dev/dm-1: no such device",
      })
  void aBadDmTableShouldBeOneLineNamingTheFieldAndExit2(
      String table, String file, String expected) {
    Blksim r = Blksim.run("io_uring", "-d32", "--dm-table", table.trim(), file.trim());
    assertEquals(2, r.status(), r.err());
    assertEquals(1, r.errLines().size(), "one line: " + r.err());
    assertTrue(r.err().contains(expected.trim()), r.err());
    assertEquals("", r.out(), "nothing on stdout");
  }

  @Test
  void anIncludeOfAScenarioFileShouldBeFoundOrRefused(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("short.conf"), "blksim.run.runtime = 1ms\n");
    Files.writeString(dir.resolve("good.conf"), "include \"short.conf\"\n");
    Files.writeString(dir.resolve("plain.conf"), "include \"nosuch.conf\"\n");
    Files.writeString(dir.resolve("required.conf"), "include required(\"nosuch.conf\")\n");
    Blksim good = Blksim.run("run", "--engine", "sequential", dir.resolve("good.conf").toString());
    assertEquals(0, good.status(), good.err());
    assertTrue(good.out().contains(" for 0.001 s of virtual time"), good.out());
    for (String file : new String[] {"plain.conf", "required.conf"}) {
      Blksim r = Blksim.run("run", dir.resolve(file).toString());
      assertEquals(2, r.status(), r.err());
      assertEquals(
          List.of(
              dir.resolve(file)
                  + ": include \"nosuch.conf\": not found (a path is relative to"
                  + " the including file; blksim reads every include, found or refused)"),
          r.errLines());
      assertFalse(r.err().contains("java."), r.err());
    }
  }

  @Test
  void anUnreadableScenarioFileShouldBeOneLine(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("secret.conf"), "blksim.run.runtime = 1ms\n");
    Files.setPosixFilePermissions(file, java.util.Set.of());
    // root reads any file: nothing to check there
    org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(file), "running as root");
    Blksim r = Blksim.run("run", file.toString());
    assertEquals(2, r.status(), r.err());
    assertEquals(List.of(file + ": cannot read it: permission denied"), r.errLines());
  }

  @Test
  void aStdoutThatFailsShouldBeOneLineAndExit2NotSilentlyLost() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.OutputStream full =
        new java.io.OutputStream() {
          @Override
          public void write(int b) throws java.io.IOException {
            throw new java.io.IOException("No space left on device");
          }
        };
    int status;
    try (java.io.PrintStream o = new java.io.PrintStream(full, true);
        java.io.PrintStream e = new java.io.PrintStream(err, true)) {
      status =
          Main.run(
              new String[] {
                "io_uring", "--engine", "sequential", "--set", "run.runtime=1ms", "/dev/nullb0"
              },
              o,
              e);
    }
    assertEquals(2, status);
    assertEquals(
        "blksim: writing standard output failed (a full device, or stdout closed?); the output is"
            + " lost or incomplete\n",
        err.toString());
    // help goes to stdout too
    java.io.ByteArrayOutputStream err2 = new java.io.ByteArrayOutputStream();
    try (java.io.PrintStream o = new java.io.PrintStream(full, true);
        java.io.PrintStream e = new java.io.PrintStream(err2, true)) {
      assertEquals(2, Main.run(new String[] {"run", "--help"}, o, e));
    }
  }

  @Test
  void inputNestedTooDeepShouldBeOneLine() {
    String deep = "[".repeat(3000) + "]".repeat(3000);
    Blksim r = Blksim.run("io_uring", "-d32", "--set", "run.seed=" + deep, "/dev/nullb0");
    assertEquals(2, r.status(), r.err());
    assertEquals(1, r.errLines().size(), "one line: " + r.err());
    assertTrue(r.err().contains("nested too deeply"), r.err());
    assertTrue(r.err().length() < 400, "the input is not echoed whole");
  }

  @Test
  void controlCharactersInInputShouldBeEscapedNotEchoed() {
    for (String[] args :
        new String[][] {
          {"io_uring", "-d", "3\n2\u001b[2J", "/dev/nullb0"},
          {"io_uring", "-d32", "--taskset", "0\n1", "/dev/nullb0"},
          {"io_uring", "-d32", "--null-blk", "gb=1\u0007x", "/dev/nullb0"},
          {"io_uring", "-d32", "--set", "engine.kind=\"a\\nb\"", "/dev/nullb0"},
          {"io_uring", "-d32", "/dev/nullb0\n/dev/x"},
        }) {
      Blksim r = Blksim.run(args);
      assertEquals(2, r.status(), String.join(" ", args) + ": " + r.err());
      assertEquals(1, r.errLines().size(), "one line: " + r.err());
      assertTrue(
          r.err().chars().filter(c -> c < 0x20).allMatch(c -> c == '\n'),
          "no raw control character: " + r.err());
      assertFalse(r.err().contains("java."), "no Java class names: " + r.err());
    }
  }

  @Test
  void dmPollingBeforeItExistedShouldBeRefused() {
    Blksim r =
        Blksim.run(
            "io_uring",
            "-d32",
            "-p1",
            "--kernel",
            "5.16",
            "--dm-table",
            "0 1024 linear /dev/nullb0 0",
            "/dev/dm-0");
    assertEquals(2, r.status(), r.err());
    assertTrue(r.err().contains("DM has no bio polling before 5.18"), r.err());
  }
}

package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.engine.SequentialEngine;
import blksim.actors.tiouring.StatusSink;
import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.Scenario;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Whole runs of the model, driven by both engines. */
class TopologyTest {

  static final class Recorder implements StatusSink {
    final List<Interval> intervals = new ArrayList<>();
    long timeoutPs = -1;
    final List<String> exited = new ArrayList<>();

    @Override
    public void interval(Interval interval) {
      intervals.add(interval);
    }

    @Override
    public void timeout(long atPs) {
      timeoutPs = atPs;
    }

    @Override
    public void threadExited(long atPs, List<String> lines) {
      exited.addAll(lines);
    }
  }

  private static BlksimSettings seedRun(String... sets) {
    return Runs.settings(
        "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = 512 }\n"
            + "blksim.run.runtime = 10ms",
        sets);
  }

  /** A caller that gives up on a run (blksim fuzz's case timeout) gets its thread back. */
  @Test
  void theSequentialEngineShouldStopWhenItsThreadIsInterrupted() {
    Topology t = Topology.build(seedRun("run.runtime=1s"), new Recorder());
    Thread.currentThread().interrupt();
    try {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> t.run(new SequentialEngine()));
      assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void bothEnginesShouldProduceTheSameRun() {
    Runs.sameOnBothEngines(seedRun());
  }

  @Test
  void theSeedRunShouldCost303NanosecondsPerIoAndBalance() {
    Recorder r = new Recorder();
    // docs/costs.md section 6's breakdown is of the path alone: no scheduler tick (which adds
    // 0.19 ns per I/O at 250 Hz, TickTest)
    RunResult res =
        Topology.build(seedRun("interference.enabled=false"), r).run(new SequentialEngine());
    assertEquals(10, r.intervals.size(), "a tenth of the runtime each");
    assertEquals(10_000_000_000L, r.timeoutPs, "the runtime ends at 10 ms");
    long ios = res.reaps();
    double nsPerIo = res.ledger().totalPs(0) / 1000.0 / ios;
    // docs/costs.md section 6's 303 ns: the profile's shape plus what its facts derive (-X1 saves
    // fdget/fdput, 18 ns per call, that section 6 counted)
    assertEquals(303.0, nsPerIo, 0.05);
    assertEquals(res.done(), ios, "-d32: every I/O submitted is reaped before the thread ends");
    r.intervals.forEach(iv -> assertEquals(iv.done(), iv.reaps(), "IOS/call 32/32"));
    assertTrue(res.books().balanced(), res.books().violations().toString());
  }

  @Test
  void brokenBooksShouldBeCaught() {
    RunResult leakBio =
        Topology.build(seedRun("books.break=leak-bio"), new Recorder()).run(new SequentialEngine());
    assertFalse(leakBio.books().balanced());
    assertTrue(
        leakBio.books().violations().get(0).contains("bios handed out and never put"),
        leakBio.books().violations().toString());
    RunResult leakTag =
        Topology.build(seedRun("books.break=leak-tag"), new Recorder()).run(new SequentialEngine());
    assertFalse(leakTag.books().balanced());
    assertTrue(
        leakTag.books().violations().get(0).contains("tags still allocated"),
        leakTag.books().violations().toString());
  }

  @Test
  void unmodelledSettingsShouldBeRefusedByName() {
    ConfigError buffered =
        assertThrows(
            ConfigError.class,
            () ->
                Topology.build(
                    seedRun("io-uring.polled=false", "io-uring.o-direct=false"), new Recorder()));
    assertTrue(buffered.getMessage().startsWith("-O0 -p0"), buffered.getMessage());
    ConfigError dev =
        assertThrows(
            ConfigError.class,
            () -> Topology.build(seedRun("io-uring.files=[\"/dev/sda\"]"), new Recorder()));
    assertTrue(dev.getMessage().startsWith("/dev/sda: no such device"), dev.getMessage());
    ConfigError bs =
        assertThrows(
            ConfigError.class,
            () -> Topology.build(seedRun("io-uring.block-size=100"), new Recorder()));
    assertTrue(bs.getMessage().contains("multiple of its logical block size"), bs.getMessage());
  }

  @Test
  void sameSettingsShouldGiveTheSameRun() {
    RunResult one = Topology.build(seedRun(), new Recorder()).run(new SequentialEngine());
    RunResult two = Topology.build(seedRun(), new Recorder()).run(new SequentialEngine());
    assertEquals(one.submitters(), two.submitters());
    assertEquals(one.latencyNs(), two.latencyNs());
  }

  @Test
  void bufferedIoOnAPolledRingShouldFailLikeTheKernelAndStopTIoUring() {
    Recorder r = new Recorder();
    RunResult res =
        Topology.build(seedRun("io-uring.o-direct=false"), r).run(new SequentialEngine());
    assertEquals(
        List.of(
            "io: unexpected ret=-95", "Your filesystem/driver/kernel doesn't support polled IO"),
        r.exited);
    assertTrue(r.intervals.isEmpty(), "the main thread stops at its first tick, printing nothing");
    assertEquals(-1, r.timeoutPs, "no Exiting on timeout");
    assertEquals(32, res.done(), "one batch was submitted and failed");
    assertTrue(res.books().balanced(), res.books().violations().toString());
  }

  @Test
  void severalThreadsCpusDevicesAndFilesShouldRunAndBalance() {
    BlksimSettings s =
        seedRun(
            "cpu.count=4",
            "io-uring.threads=3",
            "null-blk.nr-devices=2",
            "null-blk.submit-queues=4",
            "null-blk.poll-queues=4",
            "io-uring.files=[\"/dev/nullb0\",\"/dev/nullb1\"]");
    RunResult seq = Runs.sameOnBothEngines(s);
    assertEquals(3, seq.submitters().size());
    assertEquals(
        List.of(0, 1, 2), seq.submitters().stream().map(RunResult.Submitter::cpu).toList());
    assertTrue(seq.books().balanced(), seq.books().violations().toString());
  }

  /**
   * null_blk irqmode=2, one CPU, -d8 -s8 -c8 -p0: each cycle submits 8 reads, sleeps in
   * io_cqring_wait while their timers run, and is woken by the interrupt that ends them. Its length
   * is completion_nsec plus the cycle's CPU time, less what the CPU does while the timers already
   * run: queue_rq of the 7 later requests and the context switch out.
   */
  @Test
  void timerCompletionShouldFollowLittlesLaw() {
    BlksimSettings s =
        new Scenario()
            .hocon(
                "blksim.io-uring { depth = 8, batch-submit = 8, batch-complete = 8,"
                    + " block-size = 512, polled = false }\nblksim.run.runtime = 10ms",
                "test")
            .nullBlk("irqmode=2 completion_nsec=10000")
            .settings();
    Recorder r = new Recorder();
    RunResult res = Topology.build(s, r).run(new SequentialEngine());
    assertTrue(res.books().balanced(), res.books().violations().toString());
    long cycles = res.calls();
    double cpuPerCycleNs = res.ledger().totalPs(0) / 1000.0 / cycles;
    PathCosts costs = PathCosts.of(s.profile(), s.kernel(), new PathCosts.Knobs(true, true, true));
    double queueRqNs = costs.step(KernelFn.NULL_QUEUE_RQ).ps() / 1000.0;
    double switchNs = costs.step(KernelFn.SCHEDULE).ps() / 1000.0;
    double cycleNs = 10_000 + cpuPerCycleNs - 7 * queueRqNs - switchNs;
    double littlesLaw = 8 / (cycleNs * 1e-9);
    double iops = r.intervals.stream().mapToLong(StatusSink.Interval::done).sum() / 0.010;
    assertEquals(littlesLaw, iops, 0.03 * littlesLaw, "within 3 % of Little's law");
    assertTrue(res.latencyNs().getValueAtPercentile(50) >= 10_000, "p50 at least completion_nsec");
    assertEquals(
        2.0,
        res.ledger().steps(0).get("__schedule").calls() / (double) cycles,
        0.01,
        "one sleep and one wake-up per cycle");
    assertTrue(res.ledger().time(0, CpuTime.IRQ) > 0, "the completions ran in hard interrupts");
  }
}

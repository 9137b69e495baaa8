package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.queues.time.VirtualTime;
import org.junit.jupiter.api.Test;

/**
 * dmsetup suspend --noflush and resume with polled I/O in flight: io_uring's REQ_NOWAIT bios are
 * turned away with -EAGAIN and reissued by io-wq, whose blocking bios wait on md->deferred until
 * the resume submits them; every I/O completes once.
 */
class DmSuspendTest {

  private static BlksimSettings run(String... sets) {
    return Runs.settings(
        "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = 512,"
            + " files = [\"/dev/dm-0\"] }\nblksim.dm.tables = [\"0 524288000 linear /dev/nullb0"
            + " 0\"]\nblksim.cpu.count = 3\nblksim.run.runtime = 1ms",
        sets);
  }

  @Test
  void aSuspendShouldSendNowaitBiosToIoWqAndDeferTheRestUntilResume() {
    RunResult r = Runs.sameOnBothEngines(run("dm.suspend=[\"dm-0 at 200us for 50us\"]"));
    RunResult.Dm dm = r.dms().get(0);
    assertTrue(dm.suspendedNowait() > 0, "REQ_NOWAIT bios came while suspended");
    assertTrue(dm.suspendedDeferred() > 0, "io-wq's blocking reissues were deferred");
    assertEquals(1, r.workers().size());
    assertEquals(dm.suspendedNowait(), r.workers().get(0).punted(), "each -EAGAIN is one punt");
    assertEquals(dm.suspendedDeferred(), dm.resubmitted(), "the resume submits what it deferred");
    assertEquals(r.done(), r.submitters().get(0).completed(), "every I/O completed once");
    assertEquals(0, dm.requeuedPolledEagain());
  }

  @Test
  void aLateDmsetupShouldStillHoldEachSuspendForItsLength() {
    // beside the polling thread dmsetup runs only when the thread's slice ends, after both
    // suspends' times: it suspends, sleeps 20 us, resumes, then suspends again for 2 ms
    String one = "dm.suspend=[\"dm-0 at 200us for 20us\"]";
    String two = "dm.suspend=[\"dm-0 at 200us for 20us\", \"dm-0 at 250us for 2ms\"]";
    RunResult once = Runs.sameOnBothEngines(run("cpu.count=1", "run.runtime=20ms", one));
    RunResult twice = Runs.sameOnBothEngines(run("cpu.count=1", "run.runtime=20ms", two));
    assertTrue(twice.books().balanced(), twice.books().violations().toString());
    assertTrue(
        twice.done() < once.done() * 0.9,
        "the second suspend held I/O up for 2 ms: " + twice.done() + " vs " + once.done());
    assertEquals(3, twice.dms().get(0).dmsetup().nvcsw(), "asleep after each suspend, then done");
  }

  @Test
  void dmsetupOnACpuOfItsOwnShouldNeverWait() {
    RunResult r = Runs.sameOnBothEngines(run("dm.suspend=[\"dm-0 at 200us for 50us\"]"));
    RunResult.Dm dm = r.dms().get(0);
    assertEquals(2, dm.dmsetupCpu(), "after the thread's and its worker's");
    assertEquals(0, dm.dmsetup().runDelayPs());
    assertEquals(2, dm.dmsetup().nvcsw(), "it slept after the suspend and after the resume");
    assertTrue(!r.dmsetupShares(dm) && !r.sharedCpus(), "no run-queue table");
  }

  @Test
  void aSuspendShouldCostWhatTheIoItHeldUpWouldHaveDone() {
    RunResult plain = Runs.sameOnBothEngines(run());
    RunResult held = Runs.sameOnBothEngines(run("dm.suspend=[\"dm-0 at 200us for 200us\"]"));
    assertTrue(held.done() < plain.done(), held.done() + " vs " + plain.done());
  }

  @Test
  void requeuedBiosShouldWaitForTheResumeToo() {
    // -d128 on 8 tags: polled clones find no tag, are requeued, and md->wq may not run until
    // resume.
    RunResult r =
        Runs.sameOnBothEngines(
            run(
                "io-uring.depth=128",
                "null-blk.hw-queue-depth=8",
                "cpu.count=4",
                "run.runtime=4ms",
                "dm.suspend=[\"dm-0 at 200us for 2ms\"]"));
    RunResult.Dm dm = r.dms().get(0);
    assertTrue(dm.requeuedPolledEagain() > 0);
    assertEquals(r.done(), r.submitters().get(0).completed(), "every I/O completed once");
  }

  @Test
  void dmsetupWithNoCpuOfItsOwnShouldTakeItsTurnBesideTheOtherTasks() {
    for (int cpus = 1; cpus <= 2; cpus++) {
      // one CPU: the thread, its io-wq worker and dmsetup on it; two: dmsetup beside the worker
      RunResult r =
          Runs.sameOnBothEngines(
              run(
                  "cpu.count=" + cpus,
                  "run.runtime=20ms",
                  "dm.suspend=[\"dm-0 at 200us for 50us\"]"));
      RunResult.Dm dm = r.dms().get(0);
      assertTrue(dm.suspendedNowait() > 0, cpus + " CPUs: the suspend turned bios away");
      assertEquals(dm.suspendedDeferred(), dm.resubmitted(), cpus + " CPUs: all resubmitted");
      assertEquals(r.done(), r.submitters().get(0).completed(), "every I/O completed once");
      assertEquals(cpus - 1, dm.dmsetupCpu(), "the idlest CPU: the worker's, else the thread's");
      assertTrue(r.dmsetupShares(dm) && r.sharedCpus(), "the run-queue table shows it");
      assertTrue(dm.dmsetup().runDelayPs() > 0, "it waited for the CPU: its commands came late");
      if (cpus == 2) {
        // the worker spins for uring_lock, which the polling thread holds waiting for what the
        // suspend deferred, until the tick ends its slice and dmsetup runs the resume
        assertTrue(
            r.workers().get(0).lockWaitPs() > VirtualTime.ps(1_000_000),
            "spun " + r.workers().get(0).lockWaitPs() + " ps");
      }
    }
  }

  @Test
  void aSuspendWhereTagsRunOutAndNoCpuIsLeftForTheWorkerShouldRunOnTheThreadsCpu() {
    // one CPU, 128 deep on 32 tags: the worker's issue and dmsetup wait their turns beside the
    // polling thread, whose slice ends at a tick; every bio turned away is reissued and ends once
    RunResult r =
        Runs.sameOnBothEngines(
            run(
                "cpu.count=1",
                "io-uring.depth=128",
                "null-blk.hw-queue-depth=32",
                "run.runtime=20ms",
                "dm.suspend=[\"dm-0 at 200us for 50us\"]"));
    assertTrue(r.books().balanced(), r.books().violations().toString());
    RunResult.Dm dm = r.dms().get(0);
    RunResult.Worker w = r.workers().get(0);
    assertTrue(r.sharesCpu(w), "no CPU left: " + w);
    assertTrue(dm.suspendedNowait() > 0, "the suspend turned bios away");
    assertEquals(dm.suspendedNowait(), w.punted(), "each -EAGAIN is one punt");
    assertTrue(dm.requeuedPolledEagain() > 0, "clones short of tags requeued by md->wq beside");
    assertEquals(r.done(), r.submitters().get(0).completed(), "every I/O completed once");
    assertTrue(dm.dmsetup().runDelayPs() > 0, "dmsetup waited for the thread's slice");
  }

  @Test
  void whatIsNotModelledOrCannotEndShouldBeRefused() {
    refused("the run's end", "dm.suspend=[\"dm-0 at 900us for 200us\"]");
    refused("-p0", "dm.suspend=[\"dm-0 at 200us for 50us\"]", "io-uring.polled=false");
    refused("overlaps", "dm.suspend=[\"dm-0 at 200us for 50us\", \"dm-0 at 210us for 5us\"]");
    refused("accepted '<dm-N> at <duration>", "dm.suspend=[\"dm-0 200us\"]");
    refused("no such device dm-1", "dm.suspend=[\"dm-1 at 200us for 50us\"]");
    refused("more than 10 ms", "run.runtime=100ms", "dm.suspend=[\"dm-0 at 1ms for 30ms\"]");
    refused("the run's end", "dm.suspend=[\"dm-0 at 9223372036854775807ns for 50us\"]");
    refused(
        "requeued by 3 threads",
        "io-uring.threads=3",
        "io-uring.depth=16",
        "cpu.count=8",
        "null-blk.hw-queue-depth=2",
        "dm.suspend=[\"dm-0 at 200us for 50us\"]");
  }

  private static void refused(String why, String... sets) {
    ConfigError e =
        assertThrows(
            ConfigError.class, () -> Topology.build(run(sets), new TopologyTest.Recorder()));
    assertTrue(e.getMessage().contains(why), e.getMessage());
  }
}

package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.queues.time.VirtualTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Submitter threads that share a CPU take turns as its CFS run queue says: the CPU's time is theirs
 * together, each waits on the run queue while the other runs, and nothing is lost.
 */
class SharedCpuTest {
  private static final String ONE_CPU =
      Runs.D32 + "blksim.run.runtime = 40ms\nblksim.cpu.count = 1\n";

  @Test
  void twoPollingThreadsOnOneCpuGiveAboutTheIopsOfOneAndTakeTurns() {
    RunResult alone = Runs.sequential(ONE_CPU);
    RunResult two = Runs.sameOnBothEngines(Runs.settings(ONE_CPU, "io-uring.threads=2"));
    assertTrue(two.books().balanced(), two.books().violations().toString());
    assertEquals(2, two.submitters().size());
    double ratio = (double) two.done() / alone.done();
    assertTrue(ratio < 1.0, "the switches cost something: " + ratio);
    assertTrue(ratio > 0.97, "one CPU's worth of I/O between them: " + ratio);
    for (RunResult.Submitter sub : two.submitters()) {
      RunResult.SchedInfo sched = sub.sched();
      assertEquals(0, sub.cpu());
      assertTrue(sched.nivcsw() >= 4, "preempted at its slices' ends: " + sched);
      assertTrue(sched.nvcsw() <= 1, "an IOPOLL ring never sleeps; its exit is one: " + sched);
      double share = (double) sched.onCpuPs() / two.endPs();
      assertTrue(share > 0.35 && share < 0.65, "about half the CPU each: " + share);
      assertTrue(
          sched.runDelayPs() > VirtualTime.ps(10_000_000), "waited while the other ran: " + sched);
    }
    RunResult.SchedInfo a = alone.submitters().get(0).sched();
    assertEquals(0, a.nivcsw(), "alone, never preempted");
    assertEquals(0, a.runDelayPs());
  }

  @Test
  void threadsThatSleepForInterruptsShareACpuToo() {
    RunResult two =
        Runs.sameOnBothEngines(
            Runs.settings(
                ONE_CPU,
                "io-uring.threads=2",
                "io-uring.polled=false",
                "null-blk.irqmode=2",
                "null-blk.completion-nsec=20000"));
    assertTrue(two.books().balanced(), two.books().violations().toString());
    for (RunResult.Submitter sub : two.submitters()) {
      assertTrue(sub.sched().nvcsw() > 100, "each sleeps in io_cqring_wait: " + sub.sched());
      assertTrue(sub.done() > 0);
    }
    // an interrupt wakes only the threads whose requests it ended: each sleeps as often
    RunResult.SchedInfo a = two.submitters().get(0).sched();
    RunResult.SchedInfo b = two.submitters().get(1).sched();
    assertTrue(Math.abs(a.nvcsw() - b.nvcsw()) <= a.nvcsw() / 20, a + " " + b);
  }

  @Test
  void syncReadersThatSleepForTheirTimersShareACpuAndEachIsWokenForItsOwnRead() {
    String sync = "io-uring.sync-io=true";
    String[] timers = {"io-uring.polled=false", "null-blk.irqmode=2", sync};
    RunResult alone = Runs.sequential(ONE_CPU, timers);
    RunResult two =
        Runs.sameOnBothEngines(
            Runs.settings(ONE_CPU, "io-uring.threads=2", timers[0], timers[1], timers[2]));
    assertTrue(two.books().balanced(), two.books().violations().toString());
    // each preadv2 sleeps out its own 10 us timer: two sleepers on one CPU read twice as fast
    double ratio = (double) two.done() / alone.done();
    assertTrue(ratio > 1.8 && ratio < 2.05, "two reads in flight instead of one: " + ratio);
    for (RunResult.Submitter sub : two.submitters()) {
      assertTrue(sub.sched().nvcsw() > 100, "each sleeps in blk_io_schedule: " + sub.sched());
      assertTrue(sub.done() > two.done() / 3, "each woken for its own read: " + sub.done());
    }
  }

  @Test
  void pollingSyncReadersAndAioSubmittersTakeTurnsOnOneCpu() {
    for (String loop : List.of("io-uring.sync-io=true", "io-uring.aio=true")) {
      String polled = loop.contains("aio") ? "io-uring.polled=false" : "io-uring.polled=true";
      RunResult alone = Runs.sequential(ONE_CPU, loop, polled);
      RunResult two =
          Runs.sameOnBothEngines(Runs.settings(ONE_CPU, "io-uring.threads=2", loop, polled));
      assertTrue(two.books().balanced(), loop + ": " + two.books().violations());
      double ratio = (double) two.done() / alone.done();
      assertTrue(ratio > 0.95 && ratio < 1.0, loop + ": one CPU's worth between them: " + ratio);
      for (RunResult.Submitter sub : two.submitters()) {
        assertTrue(sub.sched().nivcsw() >= 4, loop + ": preempted at its slices' ends");
        assertTrue(sub.sched().runDelayPs() > VirtualTime.ps(10_000_000), loop + ": waited");
      }
    }
  }

  @Test
  void threadsPinnedToOneCpuStartWithOneDebitAndShareItFairly() {
    RunResult four =
        Runs.sequential(
            "blksim.io-uring { depth = 16, batch-submit = 8, batch-complete = 8, block-size = 512"
                + " }\nblksim.run.runtime = 20ms\nblksim.cpu.count = 1\n",
            "io-uring.threads=4",
            "io-uring.polled=false",
            "null-blk.irqmode=2");
    assertTrue(four.books().balanced(), four.books().violations().toString());
    long least = Long.MAX_VALUE;
    long most = 0;
    for (RunResult.Submitter sub : four.submitters()) {
      least = Math.min(least, sub.sched().onCpuPs());
      most = Math.max(most, sub.sched().onCpuPs());
    }
    assertTrue(most - least < four.endPs() / 100, "within 1 % of the CPU: " + least + " " + most);
  }

  @Test
  void aTasksetNamingOneCpuForTwoThreadsRunsThemThere() {
    RunResult r =
        Runs.sameOnBothEngines(
            Runs.settings(
                Runs.D32 + "blksim.run.runtime = 10ms\n",
                "cpu.count=2",
                "io-uring.threads=2",
                "cpu.submitter-cpus=[1]"));
    assertEquals(1, r.submitters().get(0).cpu());
    assertEquals(1, r.submitters().get(1).cpu());
    assertEquals(1, r.busyCpus().size(), "CPU 0 runs nothing");
    assertTrue(r.sharedCpus());
  }

  /**
   * Three -S1 or -a1 threads on one CPU, two tags: reads sleep in {@code blk_mq_get_tag}, each task
   * on a wait entry of its own ({@code sbitmap_prepare_to_wait}), several of one CPU at once, and a
   * freed tag wakes the task of the first entry ({@code sbitmap_queue_wake_up}). Every sleeper is
   * woken for its own tag: each thread reads, and the books find none left asleep or unfinished.
   */
  @Test
  void syncAndAioThreadsSharingACpuSleepForTagsAndEachIsWokenForItsOwn() {
    for (String loop : List.of("io-uring.sync-io=true", "io-uring.aio=true")) {
      eachSleeperWoken(loop, Runs.settings(TAG_SLEEPERS, "cpu.count=1", loop));
    }
  }

  /**
   * Threads 0 and 2 of three on CPU 0, thread 1 on CPU 1, four tags: an -a1 thread that finds no
   * tag with requests in its plug is on the wait queue while its plug is flushed, and a tag that
   * CPU 1's interrupt frees meanwhile wakes the entry ahead of it, the other thread of CPU 0, not
   * the flushing one, which sleeps after its flush.
   */
  @Test
  void aTagFreedWhileAnAioThreadFlushesItsPlugWakesTheOtherSleeperOfItsCpu() {
    String aio = "io-uring.aio=true";
    eachSleeperWoken(
        aio,
        Runs.settings(TAG_SLEEPERS, "cpu.count=2", aio, "null-blk.hw-queue-depth=4"),
        List.of(0, 1, 0));
  }

  /** Three threads of reads that end by their timers (irqmode=2), on two tags. */
  private static final String TAG_SLEEPERS =
      "blksim.run.runtime = 10ms\n"
          + "blksim.io-uring { threads = 3, polled = false }\n"
          + "blksim.null-blk { irqmode = 2, hw-queue-depth = 2 }\n";

  private static void eachSleeperWoken(String loop, BlksimSettings s) {
    eachSleeperWoken(loop, s, List.of(0, 0, 0));
  }

  /**
   * {@code s} runs alike on both engines, its threads on {@code cpus}, each woken from its sleeps.
   */
  private static void eachSleeperWoken(String loop, BlksimSettings s, List<Integer> cpus) {
    RunResult r = Runs.sameOnBothEngines(s);
    assertTrue(r.sharedCpus(), loop);
    assertTrue(r.books().balanced(), loop + ": " + r.books().violations());
    long tagWaits = r.hctxs().stream().mapToLong(RunResult.Hctx::tagWaits).sum();
    assertTrue(tagWaits > 100, loop + ": the threads slept for tags: " + tagWaits);
    assertEquals(cpus, r.submitters().stream().map(RunResult.Submitter::cpu).toList());
    for (RunResult.Submitter sub : r.submitters()) {
      // a voluntary switch a sleep: a thread that sleeps again was woken from the sleep before
      assertTrue(sub.sched().nvcsw() > 100, loop + ": each sleeps: " + sub.sched());
      assertTrue(sub.done() > 0, loop + ": woken, each reads: " + sub.done());
    }
  }

  /**
   * t/io_uring's default -d128 on null_blk's 64 tags, one CPU for two threads and their workers.
   */
  private static final String SHORT_OF_TAGS_ONE_CPU =
      "blksim.io-uring { depth = 128, batch-submit = 32, batch-complete = 32, block-size = 512 }\n"
          + "blksim.run.runtime = 20ms\n"
          + "blksim.cpu.count = 1\n";

  @Test
  void threadsAndTheirWorkersShouldTakeTurnsOnOneCpuWhereTagsRunOut() {
    RunResult one = Runs.sequential(SHORT_OF_TAGS_ONE_CPU);
    RunResult two =
        Runs.sameOnBothEngines(Runs.settings(SHORT_OF_TAGS_ONE_CPU, "io-uring.threads=2"));
    assertTrue(two.books().balanced(), two.books().violations().toString());
    assertEquals(2, two.workers().size());
    long onCpu = 0;
    for (RunResult.Worker w : two.workers()) {
      assertEquals(0, w.cpu(), "no CPU left: each worker runs on its thread's");
      assertTrue(two.sharesCpu(w));
      assertTrue(w.punted() > 0 && w.sched().onCpuPs() > 0, "it ran, on the run queue: " + w);
      onCpu += w.sched().onCpuPs();
    }
    for (RunResult.Submitter sub : two.submitters()) {
      assertTrue(sub.sched().nivcsw() > 0, "preempted by the others: " + sub.sched());
      onCpu += sub.sched().onCpuPs();
    }
    // four tasks, one CPU: their times add up to the CPU's, less its interrupts and idle
    assertTrue(onCpu <= two.endPs(), onCpu + " ps on a CPU of " + two.endPs());
    assertTrue(two.ledger().totalPs(0) <= two.endPs());
    double ratio = (double) two.done() / one.done();
    assertTrue(ratio > 0.5 && ratio < 1.5, "about one thread's reads on one CPU: " + ratio);
  }

  @Test
  void threadsThatShareACpuShouldShareItsMdWqRequeueOfDmClonesShortOfTags() {
    // two polling threads on one CPU read dm-0 over 8 tags: clones find no tag, end
    // BLK_STS_AGAIN, and md->wq resubmits the originals of both threads, not polled, in the call
    // of whichever runs; each completes on its own ring
    RunResult r =
        Runs.sameOnBothEngines(
            Runs.settings(
                Runs.D32,
                "io-uring.files=[\"/dev/dm-0\"]",
                "io-uring.threads=2",
                "io-uring.depth=16",
                "io-uring.batch-submit=8",
                "io-uring.batch-complete=8",
                "dm.tables=[\"0 524288000 linear /dev/nullb0 0\"]",
                "null-blk.hw-queue-depth=8",
                "cpu.count=1",
                "run.runtime=5ms"));
    assertTrue(r.books().balanced(), r.books().violations().toString());
    RunResult.Dm dm = r.dms().get(0);
    assertTrue(dm.requeuedPolledEagain() > 0, "clones short of tags were requeued");
    assertEquals(dm.requeuedPolledEagain(), dm.resubmitted(), "md->wq resubmitted each");
    for (RunResult.Submitter sub : r.submitters()) {
      assertEquals(0, sub.cpu());
      assertTrue(sub.done() > 0 && sub.sched().runDelayPs() > 0, "each read, in its turn: " + sub);
    }
  }

  /**
   * {@code --taskset 0,0 --cpus 2 -n2 -d21 -s1 -p1} on one poll tag, for 50 us: thread 0's worker
   * (CPU 1) issues a request once the thread has ended, which only the ring's teardown polls, and
   * thread 1's worker, on CPU 0 beside that teardown, spins for the one tag. The teardown, woken on
   * CPU 0, preempts the spinner though the CPU's tick stopped with its threads: it polls, the tag
   * is freed, and the run drains (it spun for ever before, a run of its drain never ending).
   */
  @Test
  void aRingsTeardownWokenBesideAWorkerSpinningForItsTagShouldPreemptItAndTheRunDrain() {
    RunResult r =
        Runs.sameOnBothEngines(
            Runs.settings(
                "blksim.io-uring { depth = 21, batch-submit = 1, batch-complete = 21 }\n",
                "io-uring.threads=2",
                "cpu.count=2",
                "cpu.submitter-cpus=[0]",
                "null-blk.hw-queue-depth=1",
                "null-blk.irqmode=1",
                "queue.scheduler=none",
                "run.runtime=50us"));
    assertTrue(r.books().balanced(), r.books().violations().toString());
    assertEquals(List.of(1, 0), r.workers().stream().map(RunResult.Worker::cpu).toList());
    RunResult.Worker beside = r.workers().get(1);
    assertTrue(beside.spinsEndedByTag() > 0, "it spun beside the teardown: " + beside);
    long dropped = r.submitters().stream().mapToLong(RunResult.Submitter::droppedAtExit).sum();
    assertTrue(dropped > 0, "the teardown took what the worker issued late: " + dropped);
    assertTrue(
        r.endPs() < VirtualTime.ps(20_000_000),
        "drained in less than a slice or two: " + r.endPs());
  }

  @Test
  void aThreadWhoseRequestsAllWaitAtItsWorkerShouldTurnInClosedFormUntilItsSliceEnds() {
    // two CPUs, one tag on the one poll queue, no CPU left for the workers: thread 0 keeps the tag
    // (it issues again as soon as it reaps), so all of thread 1's requests wait at its worker, and
    // thread 1 enters io_uring with nothing to do until the tick ends its slice; then its worker
    // issues one, spins for the tag its own request holds, and the thread polls it in its turn
    RunResult res =
        Runs.sameOnBothEngines(
            Runs.settings(
                SHORT_OF_TAGS_ONE_CPU,
                "cpu.count=2",
                "io-uring.threads=2",
                "null-blk.hw-queue-depth=1",
                "null-blk.poll-queues=1",
                "run.runtime=2ms"));
    assertTrue(res.books().balanced(), res.books().violations().toString());
    RunResult.Submitter stuck = res.submitters().get(1);
    assertTrue(stuck.calls() > 1000 * stuck.done(), "its empty calls counted: " + stuck);
    assertTrue(
        res.messages() * 100 < res.calls(),
        res.messages() + " messages for " + res.calls() + " io_uring_enter calls");
    assertTrue(
        res.ledger().steps(1).get("io_uring_enter").calls() >= stuck.calls(),
        "each of them charged");
    RunResult.Worker w = res.workers().get(1);
    assertEquals(1, w.cpu());
    assertTrue(w.spinSlices() > 10, "its worker spins its slices out: " + w);
    // each takes half of the CPU: the thread its empty calls, the worker its spins
    double thread = (double) stuck.sched().onCpuPs() / res.endPs();
    double worker = (double) w.sched().onCpuPs() / res.endPs();
    assertTrue(Math.abs(thread - worker) < 0.1, thread + " vs " + worker);
  }

  @Test
  void threadsSharingACpuHaveIoWqWorkersOnCpusOfTheirOwn() {
    RunResult r =
        Runs.sameOnBothEngines(
            Runs.settings(
                "blksim.run.runtime = 10ms\n",
                "cpu.count=3",
                "io-uring.threads=2",
                "cpu.submitter-cpus=[0]"));
    assertTrue(r.sharedCpus());
    assertEquals(List.of(1, 2), r.workers().stream().map(RunResult.Worker::cpu).toList());
    assertTrue(r.workers().stream().allMatch(w -> w.punted() > 0), "tags ran out: " + r.workers());
    assertTrue(r.books().balanced(), r.books().violations().toString());
  }
}

package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.actors.engine.SequentialEngine;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The end-of-run books, broken on purpose: a hardware queue throws mid-run ({@code books.break =
 * throw}), the run ends there, and its partial books must name everything that was in flight — the
 * submitter, io_uring's lists, the bio set, tags and requests, null_blk's timers, io-wq, DM's
 * dm_ios and its suspend. (Checks that only a bug could break are broken field by field in the
 * queues' and devices' BooksOnPurposeTest.)
 */
class BooksOnPurposeTest {
  private static final String SEED =
      "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = 512 }\n"
          + "blksim.run.runtime = 10ms";
  private static final String DM =
      "blksim.io-uring { depth = 32, batch-submit = 32, batch-complete = 32, block-size = 4096,"
          + " files = [\"/dev/dm-0\"] }\nblksim.run.runtime = 1ms\nblksim.kernel.preset ="
          + " \"5.18\"\nblksim.dm.tables = [\"0 1024 linear /dev/nullb0 0\"]";

  /** The books of a run of {@code hocon} whose hardware queue throws at request {@code n}. */
  private static List<String> stoppedAt(long n, String hocon, String... sets) {
    String[] all = new String[sets.length + 2];
    System.arraycopy(sets, 0, all, 0, sets.length);
    all[sets.length] = "books.break=throw";
    all[sets.length + 1] = "books.throw-after=" + n;
    RunFailed f =
        assertThrows(
            RunFailed.class,
            () ->
                Topology.build(Runs.settings(hocon, all), new TopologyTest.Recorder())
                    .run(new SequentialEngine()));
    assertTrue(f.getMessage().contains("broken on purpose"), f.getMessage());
    return f.partial().books().violations();
  }

  private static void fires(List<String> violations, String... expected) {
    for (String e : expected) {
      assertTrue(
          violations.stream().anyMatch(v -> v.contains(e)),
          "expected '" + e + "' in " + violations);
    }
  }

  @Test
  void aPolledRunStoppedMidWayShouldNameWhatWasInFlight() {
    fires(
        stoppedAt(1000, SEED),
        "cpu0: the submitter thread never ended",
        "cpu0: 32 io_uring requests still on the IOPOLL list",
        "cpu0: io_uring requests not back in the request cache",
        "cpu0: io_uring requests submitted vs completed",
        "cpu0: SQEs the kernel accepted vs t/io_uring's done",
        "blkdev_dio_pool: bios handed out and never put",
        "hctx1: tags still allocated at the end of the run",
        "hctx1: request tag",
        "hctx1: requests dispatched vs freed");
  }

  @Test
  void anIrqRunStoppedMidWayShouldNameItsInterruptsAndTimers() {
    fires(
        stoppedAt(1000, SEED, "io-uring.polled=false", "null-blk.irqmode=2"),
        "cpu0: an interrupt was left unhandled",
        "nullb0: requests queued vs completed",
        "nullb0: completion timers still armed");
  }

  @Test
  void ioWqStoppedMidWayShouldNameItsWork() {
    fires(
        stoppedAt(3000, "blksim.run.runtime = 10ms"),
        "cpu1-iou-wrk0: requests punted to io-wq vs issued by it",
        "cpu1-iou-wrk0: 64 requests left on the io-wq list",
        "cpu1-iou-wrk0: the io-wq worker was left with a request");
  }

  @Test
  void aDmRunStoppedMidWayShouldNameItsDmIos() {
    fires(
        stoppedAt(100, DM),
        "dm-0: dm_ios never completed (md->pending_io)",
        "dm-0: dm_ios allocated vs completed",
        "dm-0: dm_ios left on a polled bio's list",
        "dm-0 io_bs: bios handed out and never put");
  }

  @Test
  @SuppressWarnings("unchecked")
  void aHardwareQueueLeftHalfWayThroughACallShouldBeCaught() throws ReflectiveOperationException {
    blksim.config.BlksimSettings s = blksim.config.BlksimSettings.defaults();
    blksim.actors.block.blk_mq.HwCtxActor q =
        new blksim.actors.block.blk_mq.HwCtxActor(
            new blksim.actors.engine.SimRef<>(0, "nullb0-hctx1"),
            new blksim.queues.block.blk_mq.HwCtx(1, blksim.queues.block.blk_mq.HctxType.POLL, 4, 1),
            new blksim.actors.engine.SimRef<>(1, "nullb0"),
            blksim.queues.cost.PathCosts.of(
                s.profile(), s.kernel(), new blksim.queues.cost.PathCosts.Knobs(true, true, true)),
            s.books(),
            blksim.queues.block.blk_mq.HctxFeatures.NONE);
    ((java.util.Map<Integer, List<Object>>) field(field(q, "flush"), "wouldBlock"))
        .put(0, List.of());
    ((java.util.Map<Integer, List<Object>>) field(field(q, "runWork"), "endedEarlier"))
        .put(0, List.of());
    blksim.queues.books.Books books = new blksim.queues.books.Books();
    q.audit(books);
    fires(
        books.violations(),
        "nullb0-hctx1: bios that found no tag never ended (-EAGAIN)",
        "nullb0-hctx1: a call that kblockd ran the queue for never finished");
  }

  private static Object field(Object target, String name) throws ReflectiveOperationException {
    java.lang.reflect.Field f = target.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(target);
  }

  private static void set(Object target, String name, Object value)
      throws ReflectiveOperationException {
    java.lang.reflect.Field f = target.getClass().getDeclaredField(name);
    f.setAccessible(true);
    f.set(target, value);
  }

  /** What no run leaves undone, broken in a run that balanced: a CQE not reaped, a resume. */
  @Test
  @SuppressWarnings("unchecked")
  void whatOnlyABugCouldLeaveShouldBeCaughtToo() throws ReflectiveOperationException {
    Topology t =
        Topology.build(
            Runs.settings(DM, "cpu.count=3", "dm.suspend=[\"dm-0 at 200us for 200us\"]"),
            new TopologyTest.Recorder());
    assertTrue(t.run(new SequentialEngine()).books().balanced());
    blksim.actors.cpu.Cpu cpu = ((List<blksim.actors.cpu.Cpu>) field(t, "cpus")).get(0);
    Object sub = cpu.threads().get(0).submitter();
    set(sub, "reaps", (Long) field(sub, "reaps") + 1);
    blksim.actors.cpu.DmSetup dmsetup =
        ((List<blksim.actors.cpu.DmSetup>) field(t, "dmsetups")).get(0);
    set(field(dmsetup, "commands"), "resuming", true);
    blksim.queues.books.Books books = new blksim.queues.books.Books();
    cpu.audit(books);
    dmsetup.audit(books);
    fires(
        books.violations(),
        "cpu0: CQEs posted vs reaped",
        "cpu2-dmsetup-dm-0: a command, or the resume's work, never finished");
  }

  @Test
  void aDmRunStoppedWhileSuspendedShouldNameTheSuspend() {
    // Request 460 ends while dm-0 is suspended on 5.18's path without the 5.16-5.17 changes that
    // make each I/O cheaper (with them it ends before the suspend begins).
    fires(
        stoppedAt(
            460,
            DM,
            "cpu.count=3",
            "kernel.patches=[no-io-uring-rsrc-ref-cache, no-io-uring-rsrc-node-ctx,"
                + " no-null-poll-batch, no-driver-tag-inline, no-bio-tracked-rq-qos,"
                + " no-bio-advance-skip, no-update-request-in-blk-mq,"
                + " no-status-errno-skip, no-rqf-elv, no-rq-ctx-init-no-elv, no-remove-ctx-counters,"
                + " no-remove-hctx-counters, no-queue-enter-rcu-once, no-bdev-cached-queue,"
                + " no-blkdev-dio-flags, no-rq-layout]",
            "dm.suspend=[\"dm-0 at 200us for 200us\"]"),
        "cpu2-dmsetup-dm-0: suspends vs resumes");
  }
}

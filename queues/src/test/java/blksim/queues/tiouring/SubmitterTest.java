package blksim.queues.tiouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.cost.ReferenceCosts;
import blksim.queues.fs.aio.IoEvent;
import blksim.queues.io_uring.CqRing;
import blksim.queues.io_uring.EnterArgs;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.io_uring.SqRing;
import blksim.queues.io_uring.Sqe;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * t/io_uring's submit/reap decisions (fio t/io_uring.c {@code submitter_uring_fn}; docs/kernel.md
 * section 1.3), driven against a scripted kernel.
 */
class SubmitterTest {
  private static final int BS = 512;
  private static final long DEVICE = 250L << 30;

  /** A submitter and a kernel that accepts every SQE and completes what the test says. */
  static final class Harness {
    final SqRing sq;
    final CqRing cq;
    final IoRingCtx ctx;
    final Submitter sub;
    final ArrayDeque<IoKiocb> inKernel = new ArrayDeque<>();
    final List<Long> latencies = new ArrayList<>();

    Harness(int depth, int submit, int complete) {
      int entries = Integer.highestOneBit(depth - 1) << 1;
      sq = new SqRing(Math.max(entries, 1));
      cq = new CqRing(Math.max(entries, 1));
      ctx = new IoRingCtx(sq, cq);
      sub =
          new Submitter(
              new Submitter.Config(
                  depth, submit, complete, BS, true, true, false, true, true, false),
              sq,
              cq,
              new long[] {DEVICE},
              new SplittableRandom(7));
    }

    /** The head of a pass: prep, then the first enter's arguments. */
    EnterArgs pass() {
      int n = sub.toPrep();
      sub.beginPass(n > 0 ? sub.prepMoreIos(n, 0, 1) : 0);
      return sub.enterArgs();
    }

    /** The kernel takes the SQEs, completes the {@code complete} oldest; user space reaps. */
    Submitter.Next enter(EnterArgs a, int complete) {
      int ret = 0;
      for (int i = 0; i < a.toSubmit(); i++) {
        IoKiocb req = ctx.submitSqe();
        ctx.iopollReqIssued(req);
        inKernel.add(req);
        ret++;
      }
      for (int i = 0; i < complete; i++) {
        ctx.completeRwIopoll(inKernel.poll(), BS);
      }
      ctx.iopollFlushCompleted();
      return sub.entered(ret, sub.reap(100, 1, latencies::add));
    }
  }

  @Test
  void depth32ShouldAlwaysSubmit32AndWaitFor32() {
    Harness h = new Harness(32, 32, 32);
    for (int cycle = 0; cycle < 5; cycle++) {
      EnterArgs a = h.pass();
      assertEquals(new EnterArgs(32, 32, true), a, "cycle " + cycle);
      assertEquals(Submitter.Next.PASS, h.enter(a, 32));
    }
    assertEquals(5, h.sub.calls());
    assertEquals(160, h.sub.done());
    assertEquals(160, h.sub.reaps());
    assertEquals(0, h.sub.inflight());
  }

  @Test
  void depth128ShouldSubmitThreeTimesWithoutWaitingThenWaitFor32() {
    Harness h = new Harness(128, 32, 32);
    for (int call = 1; call <= 3; call++) {
      EnterArgs a = h.pass();
      assertEquals(new EnterArgs(32, 0, false), a, "call " + call + " only submits");
      assertEquals(Submitter.Next.PASS, h.enter(a, 0));
    }
    EnterArgs fourth = h.pass();
    assertEquals(new EnterArgs(32, 32, true), fourth);
    assertEquals(128, h.sub.inflight());
    // null_blk's poll drains the whole poll list: all 128 complete in one io_do_iopoll
    assertEquals(Submitter.Next.PASS, h.enter(fourth, 128));
    assertEquals(0, h.sub.inflight());
    assertEquals(new EnterArgs(32, 0, false), h.pass(), "the cycle starts again");
  }

  @Test
  void depth128ShouldRePrepWhatWasReapedAndWaitUnlessRoomForTwoBatches() {
    Harness h = new Harness(128, 32, 32);
    for (int call = 1; call <= 3; call++) {
      h.enter(h.pass(), 0);
    }
    h.enter(h.pass(), 31); // a device that completes 31 of 128
    assertEquals(97, h.sub.inflight());
    assertEquals(new EnterArgs(31, 32, true), h.pass(), "re-prep min(reaped, 32), then wait");
    h.enter(new EnterArgs(31, 32, true), 64);
    assertEquals(64, h.sub.inflight());
    assertEquals(new EnterArgs(32, 0, false), h.pass(), "96 + 32 fits in 128: submit only");
  }

  @Test
  void nothingAcceptedShouldDrainWithWaitOnlyEntersUntilNothingIsInFlight() {
    Harness h = new Harness(32, 32, 32);
    EnterArgs a = h.pass();
    // the kernel accepts the 32 but reaps none; then refuses nothing, completes 10 per call
    assertEquals(Submitter.Next.PASS, h.enter(a, 0));
    EnterArgs full = h.pass();
    assertEquals(new EnterArgs(0, 32, true), full, "inflight == depth: nothing to prep");
    for (int left = 32; left > 0; left -= 8) {
      Submitter.Next n = h.sub.entered(0, complete(h, 8));
      assertEquals(left - 8 > 0 ? Submitter.Next.ENTER : Submitter.Next.PASS, n);
      if (n == Submitter.Next.ENTER) {
        assertEquals(new EnterArgs(0, Math.min(left - 8, 32), true), h.sub.enterArgs());
      }
    }
    assertEquals(0, h.sub.inflight());
  }

  private static int complete(Harness h, int n) {
    for (int i = 0; i < n; i++) {
      h.ctx.completeRwIopoll(h.inKernel.poll(), BS);
    }
    h.ctx.iopollFlushCompleted();
    return h.sub.reap(0, 1, h.latencies::add);
  }

  @Test
  void partialSubmitShouldEnterAgainAtSubmitMore() {
    Harness h = new Harness(64, 32, 32);
    h.pass();
    assertEquals(Submitter.Next.ENTER, h.sub.entered(20, 0));
    assertEquals(20, h.sub.done());
    // t/io_uring: prepped -= to_submit - ret, then to_submit = prepped
    assertEquals(20, h.sub.enterArgs().toSubmit());
  }

  @Test
  void eagainShouldRetryKeepingToSubmitOnlyIfSomethingWasReaped() {
    Harness h = new Harness(64, 32, 32);
    h.pass();
    assertEquals(Submitter.Next.ENTER, h.sub.entered(-Submitter.EAGAIN, 1));
    assertEquals(32, h.sub.enterArgs().toSubmit());
    assertEquals(Submitter.Next.ENTER, h.sub.entered(-Submitter.EAGAIN, 0));
    assertEquals(0, h.sub.enterArgs().toSubmit());
    h.sub.finish();
    assertEquals(Submitter.Next.EXIT, h.sub.entered(-Submitter.EAGAIN, 0));
  }

  @Test
  void finishShouldEndTheLoopAtTheEndOfAPass() {
    Harness h = new Harness(32, 32, 32);
    EnterArgs a = h.pass();
    h.sub.finish();
    assertEquals(Submitter.Next.EXIT, h.enter(a, 32));
  }

  @Test
  void unexpectedResultShouldStopTheThread() {
    Harness h = new Harness(32, 32, 32);
    EnterArgs a = h.pass();
    for (int i = 0; i < a.toSubmit(); i++) {
      IoKiocb req = h.ctx.submitSqe();
      h.ctx.iopollReqIssued(req);
      h.ctx.completeRwIopoll(req, -5);
    }
    h.ctx.iopollFlushCompleted();
    int reaped = h.sub.reap(0, 1, h.latencies::add);
    assertEquals(-1, reaped);
    assertEquals(Submitter.Next.EXIT, h.sub.entered(32, reaped));
    assertEquals(java.util.List.of("io: unexpected ret=-5"), h.sub.fatal());
  }

  @Test
  void randomOffsetsShouldBeBlockAlignedInsideTheDevice() {
    SqRing sq = new SqRing(64);
    Submitter sub =
        new Submitter(
            new Submitter.Config(64, 64, 32, 4096, true, true, false, true, true, false),
            sq,
            new CqRing(64),
            new long[] {1L << 20},
            new SplittableRandom(1));
    sub.prepMoreIos(64, 0, 1);
    for (Sqe s = sq.consume(); s != null; s = sq.consume()) {
      assertEquals(0, s.off() % 4096);
      assertTrue(s.off() >= 0 && s.off() + 4096 <= (1L << 20));
      assertEquals(Sqe.IORING_OP_READ_FIXED, s.opcode());
      assertEquals(Sqe.IOSQE_FIXED_FILE, s.flags());
    }
  }

  @Test
  void sequentialOffsetsShouldWrapAtTheEndOfTheDevice() {
    SqRing sq = new SqRing(8);
    Submitter sub =
        new Submitter(
            new Submitter.Config(8, 8, 8, 4096, false, false, false, false, true, false),
            sq,
            new CqRing(8),
            new long[] {4 * 4096},
            new SplittableRandom(1));
    sub.prepMoreIos(6, 0, 1);
    long[] expected = {0, 4096, 8192, 12288, 0, 4096};
    for (long e : expected) {
      Sqe s = sq.consume();
      assertEquals(e, s.off());
      assertEquals(Sqe.IORING_OP_READ, s.opcode());
      assertEquals(0, s.flags());
    }
  }

  @Test
  void latencyShouldRunFromPrepToReap() {
    Harness h = new Harness(32, 32, 32);
    h.enter(h.pass(), 32);
    // SQE i written at i + 1 ps, CQE i reaped at 100 + i + 1 ps
    assertEquals(32, h.latencies.size());
    h.latencies.forEach(l -> assertEquals(100, l));
  }

  @Test
  void eopnotsuppOnAPolledRingShouldSaySoAndStop() {
    Harness h = new Harness(4, 4, 4);
    EnterArgs a = h.pass();
    for (int i = 0; i < a.toSubmit(); i++) {
      h.ctx.failRequest(h.ctx.submitSqe(), -Submitter.EOPNOTSUPP);
    }
    int reaped = h.sub.reap(0, 1, h.latencies::add);
    assertEquals(Submitter.Next.EXIT, h.sub.entered(4, reaped));
    assertEquals(
        java.util.List.of(
            "io: unexpected ret=-95", "Your filesystem/driver/kernel doesn't support polled IO"),
        h.sub.fatal());
  }

  /**
   * t/io_uring's own hang: -d3 -s2 (-c3) counts the batch twice in to_wait and asks for 3
   * completions with 2 in flight; by interrupt, io_cqring_wait never returns.
   */
  @Test
  void shouldAskForMoreCompletionsThanInFlightAtD3S2AndRecordTheHang() {
    Harness h = new Harness(3, 2, 3);
    EnterArgs a = h.pass();
    assertEquals(2, a.toSubmit());
    assertEquals(3, a.toWait(), "min(inflight 2 + to_submit 2, batch_complete 3)");
    h.sub.hangInCqringWait(a.toWait(), 2, 2);
    assertEquals(0, h.sub.done(), "the call never returned");
    assertEquals(2, h.sub.acceptedInHungCall());
    assertTrue(h.sub.fatal().get(0).startsWith("hangs in io_cqring_wait"), h.sub.fatal().get(0));
  }

  /** The ground truth of I/Os in flight: each from its SQE's stamp to its CQE's reap. */
  @Test
  void shouldWeighEachIoInFlightFromStampToReap() {
    Harness h = new Harness(2, 2, 2);
    h.sub.beginPass(h.sub.prepMoreIos(2, 0, 1000)); // stamped at 1000 and 2000 ps
    for (int i = 0; i < 2; i++) {
      IoKiocb req = h.ctx.submitSqe();
      h.ctx.iopollReqIssued(req);
      h.ctx.completeRwIopoll(req, BS);
    }
    h.ctx.iopollFlushCompleted();
    // reaped at 10000 and 11000 ps: in flight 10000 - 1000 and 11000 - 2000
    assertEquals(2, h.sub.reap(9000, 1000, ps -> {}));
    assertEquals(0, h.sub.inFlightAtEnd());
    assertEquals((9000.0 + 9000.0) / 20_000, h.sub.meanInFlight(20_000), 1e-12);
  }

  /**
   * What a pass costs in user space: {@code prep_more_ios_uring} per SQE written, {@code
   * reap_events_uring} per CQE reaped, each at its price on the reference profile.
   */
  @Test
  void eachSqeWrittenAndEachCqeReapedShouldBeChargedOnce() {
    Harness h = new Harness(4, 4, 4);
    PathCosts costs = ReferenceCosts.of();
    Charger charger = new Charger(costs, "cpu0");
    long prep = costs.step(KernelFn.PREP_MORE_IOS_URING).ps();
    long reap = costs.step(KernelFn.REAP_EVENTS_URING).ps();
    long t = h.sub.prepMoreIosUring(1000, charger, 0);
    assertEquals(1000 + 4 * prep, t);
    assertEquals(new EnterArgs(4, 4, true), h.sub.enterArgs());
    for (int i = 0; i < 3; i++) {
      IoKiocb req = h.ctx.submitSqe();
      h.ctx.iopollReqIssued(req);
      h.ctx.completeRwIopoll(req, BS);
    }
    h.ctx.iopollFlushCompleted();
    long back = h.sub.reapEventsUring(t, charger, 0, h.latencies::add);
    assertEquals(t + 3 * reap, back, "three CQEs reaped");
    assertEquals(3, h.latencies.size());
    assertEquals(Submitter.Next.ENTER, h.sub.entered(3), "a partial submit: submit_more");
    assertEquals(
        3, charger.ledger().steps(0, id -> id.toString()).get("REAP_EVENTS_URING").calls());
  }

  /** A submitter of {@code depth} reads, {@code submit} at a time, waiting for {@code complete}. */
  private static Submitter aio(int depth, int submit, int complete) {
    return new Submitter(
        new Submitter.Config(depth, submit, complete, BS, false, false, false, true, false, false),
        new SqRing(8),
        new CqRing(8),
        new long[] {DEVICE},
        new SplittableRandom(3));
  }

  @Test
  void submitterAioFnShouldPrepChargeAndWaitForItsToWait() {
    Charger charger = new Charger(ReferenceCosts.of(), "cpu0");
    Submitter sub = aio(8, 4, 2);
    Submitter.AioPass pass = sub.prepMoreIosAio(1_000, charger, 0);
    assertEquals(4, pass.iocbs().size(), "batch_submit of them");
    long per = charger.costs().callPs(KernelFn.PREP_MORE_IOS_AIO);
    assertEquals(1_000 + per, pass.iocbs().get(0).issuedAtPs(), "stamped as SQEs are");
    assertEquals(1_000 + charger.ledger().time(0, CpuTime.SUBMIT), pass.atPs());
    assertEquals(0, sub.aioToWait(), "room left in the depth: io_submit only");
    sub.aioCall(true);

    Submitter.AioPass full = sub.prepMoreIosAio(pass.atPs(), charger, 0);
    assertEquals(4, full.iocbs().size());
    assertEquals(2, sub.aioToWait(), "the depth full: batch_complete");
    sub.aioCall(true);
    List<IoEvent> one = List.of(new IoEvent(0, BS, pass.iocbs().get(0).issuedAtPs()));
    List<Long> latencies = new ArrayList<>();
    long t = sub.reapEventsAio(one, 50_000, charger, 0, latencies::add);
    assertEquals(50_000 + charger.costs().callPs(KernelFn.REAP_EVENTS_AIO), t, "one event's reap");
    assertEquals(1, sub.aioToWait(), "one more to wait for");
    assertEquals(1, latencies.size());
    assertEquals(
        -1,
        sub.reapEventsAio(List.of(new IoEvent(0, -5, 0)), t, charger, 0, latencies::add),
        "not the block size: the thread returns");
  }

  @Test
  void submitterSyncFnShouldChargeItsLoopThenStampTheRead() {
    Charger charger = new Charger(ReferenceCosts.of(), "cpu0");
    Submitter sub = aio(1, 1, 1);
    Sqe read = sub.submitterSyncFn(2_000, charger, 0);
    assertEquals(2_000 + charger.costs().callPs(KernelFn.SUBMITTER_SYNC_FN), read.issuedAtPs());
    assertEquals(1, sub.calls());
    assertEquals(1, sub.inflight());
  }

  @Test
  void submitterAioFnShouldGetEventsUntilToWaitThenPassOrEnd() {
    Charger charger = new Charger(ReferenceCosts.of(), "cpu0");
    Submitter sub = aio(4, 4, 2);
    Submitter.AioPass pass = sub.prepMoreIosAio(0, charger, 0);
    sub.aioCall(true);
    assertEquals(Submitter.Next.ENTER, sub.aioReturned(), "the depth full: io_getevents(2, 2)");
    assertEquals(2, sub.calls(), "s->calls++ for io_submit and for io_getevents");
    List<IoEvent> both =
        List.of(
            new IoEvent(0, BS, pass.iocbs().get(0).issuedAtPs()),
            new IoEvent(0, BS, pass.iocbs().get(1).issuedAtPs()));
    sub.reapEventsAio(both, 10_000, charger, 0, ps -> {});
    assertEquals(Submitter.Next.PASS, sub.aioReturned(), "to_wait reaped: the next pass");
    assertEquals(2, sub.calls());
    sub.finish();
    assertEquals(Submitter.Next.EXIT, sub.aioReturned(), "told to finish: the loop ends");
  }
}

package blksim.queues.block.fops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.fops.BlkdevDirectIoSimple.Call;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.ReferenceCosts;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.Sqe;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * preadv2 of a raw block device down to {@code __blkdev_direct_IO_simple} and the task's wait for
 * its bio on the stack (block/fops.c; docs/kernel.md section 10), as 5.15 to 5.18 run it, polling
 * under {@code RWF_HIPRI} (5.19 on ignore it there: a known difference of the model), on CPU 0 with
 * the reference profile's prices (no variation).
 */
class BlkdevDirectIoSimpleTest {
  private static final int CPU = 0;
  private static final int BS = 512;

  private final Charger charger = new Charger(ReferenceCosts.of(), "cpu0");

  /** Task 0's reads, RWF_HIPRI. */
  private final BlkdevDirectIoSimple polled = task(0, true);

  private long off;

  private BlkdevDirectIoSimple task(int owner, boolean hipri) {
    return new BlkdevDirectIoSimple(charger, CPU, owner, "cpu0", hipri);
  }

  /** The next read of {@code BS} bytes of file 0. */
  private Sqe read() {
    Sqe read = new Sqe(Sqe.IORING_OP_READ, 0, 0, off, BS, 0, 0);
    off += 8 * BS;
    return read;
  }

  private long calls(KernelFn fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU, id -> id.toString()).get(fn.name());
    return e == null ? 0 : e.calls();
  }

  private long callsOf(Contention c) {
    CostLedger.Entry e = charger.ledger().steps(CPU, id -> id.toString()).get(c.name());
    return e == null ? 0 : e.calls();
  }

  private long price(KernelFn fn) {
    return charger.costs().step(fn).ps();
  }

  private long price(KernelFn[] fns) {
    long ps = 0;
    for (KernelFn fn : fns) {
      ps += price(fn);
    }
    return ps;
  }

  @Test
  void preadv2ShouldRunItsPathAndPinTheUserPagesOncePerRead() {
    Call.SubmitBio s = polled.blkdevDirectIoSimple(read(), true, 1000);
    for (KernelFn fn : BlkdevDirectIoSimple.PREADV2_PATH) {
      assertEquals(1, calls(fn), fn.name());
    }
    for (KernelFn fn : IoRw.PAGES_PATH) {
      assertEquals(1, calls(fn), "bio_iov_iter_get_pages: " + fn.name());
    }
    assertEquals(
        1000 + price(BlkdevDirectIoSimple.PREADV2_PATH) + price(IoRw.PAGES_PATH),
        s.atPs(),
        "submit_bio comes after what it charged");
  }

  @Test
  void theBioShouldLiveOnTheStackWithTheReadsRangeAndTheTaskInBiPrivate() {
    Sqe read = new Sqe(Sqe.IORING_OP_READ, 0, 0, 8192, BS, 0, 0);
    Bio bio = polled.blkdevDirectIoSimple(read, true, 0).bio();
    assertTrue(bio.onStack(), "no bio_set: bio_init of a bio on the stack");
    assertNull(bio.pool());
    assertTrue(bio.inUse());
    assertEquals(16, bio.sector(), "the offset in 512-byte sectors");
    assertEquals(BS, bio.sizeBytes());
    assertEquals(new BlkdevDirectIoSimple.Waiter(0), bio.owner(), "bi_private = current");
    assertSame(read, polled.read());
  }

  @Test
  void aReadWithRwfHipriShouldBePolledWhenItsQueuePolls() {
    Call.SubmitBio s = polled.blkdevDirectIoSimple(read(), true, 0);
    assertTrue(s.polled(), "IOCB_HIPRI: bio_set_polled");
    assertTrue(s.bio().polled(), "REQ_POLLED");
  }

  @Test
  void submitBioChecksShouldClearReqPolledOnAQueueWithoutQueueFlagPoll() {
    Call.SubmitBio s = polled.blkdevDirectIoSimple(read(), false, 0);
    assertFalse(s.polled(), "it goes to a queue that is not polled");
    assertFalse(s.bio().polled());
  }

  @Test
  void aReadWithoutRwfHipriShouldNotBePolled() {
    Call.SubmitBio s = task(0, false).blkdevDirectIoSimple(read(), true, 0);
    assertFalse(s.polled());
    assertFalse(s.bio().polled());
  }

  @Test
  void aBioThatEndedInQueueRqShouldEndTheWaitBeforeTheTaskLooks() {
    Bio bio = polled.blkdevDirectIoSimple(read(), true, 0).bio();
    Call.Return r =
        assertInstanceOf(Call.Return.class, polled.submitBioReturned(List.of(bio), List.of(), 500));
    assertNull(bio.owner(), "blkdev_bio_end_io_simple: bi_private is NULL");
    for (KernelFn fn : BlkdevDirectIoSimple.END_IO_PATH) {
      assertEquals(1, calls(fn), fn.name());
    }
    assertEquals(0, calls(KernelFn.BIO_POLL), "nothing to poll");
    assertEquals(0, calls(KernelFn.SCHEDULE), "nothing to sleep for");
    assertEquals(1, calls(KernelFn.BIO_RELEASE_PAGES));
    assertEquals(
        500 + price(BlkdevDirectIoSimple.END_IO_PATH) + price(KernelFn.BIO_RELEASE_PAGES),
        r.atPs());
    assertEquals(0, charger.ledger().time(CPU, CpuTime.POLL), "it ended in the submitter's time");
  }

  @Test
  void aPolledBioThatIsNotDoneShouldBePolledByItsOwnTask() {
    Call.SubmitBio s = polled.blkdevDirectIoSimple(read(), true, 0);
    Call.PollBio p =
        assertInstanceOf(Call.PollBio.class, polled.submitBioReturned(List.of(), List.of(), 100));
    assertSame(s.bio(), p.bio(), "bio_poll of the bio on its stack");
    assertSame(s.read(), p.read());
    assertEquals(100 + price(KernelFn.BIO_POLL), p.atPs());
    assertEquals(price(KernelFn.BIO_POLL), charger.ledger().time(CPU, CpuTime.POLL));
    assertEquals(0, calls(KernelFn.SCHEDULE), "a poll, not a sleep");
  }

  @Test
  void anUnpolledBioThatIsNotDoneShouldSleepInBlkIoSchedule() {
    BlkdevDirectIoSimple dio = task(0, false);
    dio.blkdevDirectIoSimple(read(), true, 0);
    Call.Sleep s =
        assertInstanceOf(Call.Sleep.class, dio.submitBioReturned(List.of(), List.of(), 100));
    assertEquals(100 + price(KernelFn.SCHEDULE), s.atPs());
    assertEquals(0, calls(KernelFn.BIO_POLL), "no IOCB_HIPRI: no bio_poll");
  }

  @Test
  void aBioAnInterruptEndedBeforeTheTaskLookedShouldLeaveItNothingToWaitFor() {
    BlkdevDirectIoSimple dio = task(0, false);
    Bio bio = dio.blkdevDirectIoSimple(read(), true, 0).bio();
    assertSame(BlkdevDirectIoSimple.END_IO_PATH, BlkdevDirectIoSimple.blkdevBioEndIoSimple(bio));
    assertInstanceOf(Call.Return.class, dio.submitBioReturned(List.of(), List.of(), 100));
    assertEquals(0, calls(KernelFn.SCHEDULE), "bi_private was NULL at the first look");
  }

  @Test
  void aSyncReadShouldNeverFailForWantOfATag() {
    Bio bio = polled.blkdevDirectIoSimple(read(), true, 0).bio();
    assertThrows(
        InvariantBroken.class, () -> polled.submitBioReturned(List.of(), List.of(bio), 100));
  }

  @Test
  void aPollThatEndsTheTasksOwnBioShouldEndTheWaitInPollTime() {
    Bio bio = polled.blkdevDirectIoSimple(read(), true, 0).bio();
    polled.submitBioReturned(List.of(), List.of(), 0);
    long before = charger.ledger().time(CPU, CpuTime.POLL);
    Call.Return r = assertInstanceOf(Call.Return.class, polled.bioPolled(List.of(bio), 200));
    assertEquals(
        before + price(BlkdevDirectIoSimple.END_IO_PATH), charger.ledger().time(CPU, CpuTime.POLL));
    assertEquals(
        200 + price(BlkdevDirectIoSimple.END_IO_PATH) + price(KernelFn.BIO_RELEASE_PAGES),
        r.atPs());
    assertTrue(polled.woken().isEmpty(), "no other task's read ended");
  }

  @Test
  void aPollThatEndsAnotherTasksReadShouldEndItHereAndWakeThatTask() {
    BlkdevDirectIoSimple other = task(1, true);
    Bio theirs = other.blkdevDirectIoSimple(read(), true, 0).bio();
    polled.blkdevDirectIoSimple(read(), true, 0);
    polled.submitBioReturned(List.of(), List.of(), 0);
    long wakes = calls(KernelFn.TRY_TO_WAKE_UP);
    Call next = polled.bioPolled(List.of(theirs), 300);
    assertNull(theirs.owner(), "their blkdev_bio_end_io_simple ran on this CPU");
    assertEquals(1, polled.woken().size());
    BlkdevDirectIoSimple.Woken w = polled.woken().get(0);
    assertEquals(new BlkdevDirectIoSimple.Waiter(1), w.waiter(), "their task is woken");
    assertEquals(wakes + 1, calls(KernelFn.TRY_TO_WAKE_UP));
    assertEquals(1, callsOf(Contention.LINES_REMOTE_COMPLETION), "their lines come over");
    long lines = charger.costs().lineTransferPs() * 3;
    assertEquals(
        300 + price(BlkdevDirectIoSimple.END_IO_PATH) + lines + price(KernelFn.TRY_TO_WAKE_UP),
        w.atPs());
    Call.Sleep s = assertInstanceOf(Call.Sleep.class, next, "its own bio is not done: it sleeps");
    assertEquals(w.atPs() + price(KernelFn.SCHEDULE), s.atPs());
  }

  @Test
  void aBioAnotherTasksPollEndedShouldEndTheWaitAtTheNextLook() {
    Bio bio = polled.blkdevDirectIoSimple(read(), true, 0).bio();
    polled.submitBioReturned(List.of(), List.of(), 0);
    BlkdevDirectIoSimple.blkdevBioEndIoSimple(bio); // another task's poll took it
    assertInstanceOf(Call.Return.class, polled.bioPolled(List.of(), 200));
    assertEquals(0, calls(KernelFn.SCHEDULE));
  }

  @Test
  void aTaskWokenWithBiPrivateStillSetShouldSleepAgain() {
    BlkdevDirectIoSimple dio = task(0, false);
    dio.blkdevDirectIoSimple(read(), true, 0);
    dio.submitBioReturned(List.of(), List.of(), 0);
    Call.Sleep s = assertInstanceOf(Call.Sleep.class, dio.scheduled(1000));
    assertEquals(1000 + 2 * price(KernelFn.SCHEDULE), s.atPs(), "switched in, then out again");
    assertEquals(3, calls(KernelFn.SCHEDULE));
  }

  @Test
  void aTaskWokenByTheEndOfItsBioShouldReturn() {
    BlkdevDirectIoSimple dio = task(0, false);
    Bio bio = dio.blkdevDirectIoSimple(read(), true, 0).bio();
    dio.submitBioReturned(List.of(), List.of(), 0);
    BlkdevDirectIoSimple.blkdevBioEndIoSimple(bio); // the interrupt
    Call.Return r = assertInstanceOf(Call.Return.class, dio.scheduled(1000));
    assertEquals(1000 + price(KernelFn.SCHEDULE) + price(KernelFn.BIO_RELEASE_PAGES), r.atPs());
  }

  @Test
  void preadv2ShouldReturnTheBytesReadOrTheBiosErrorAndTakeTheBioOffTheStack() {
    Bio bio = polled.blkdevDirectIoSimple(read(), true, 0).bio();
    polled.submitBioReturned(List.of(bio), List.of(), 0);
    assertEquals(BS, polled.preadv2Returned());
    assertFalse(bio.inUse(), "bio_uninit");
    Bio failed = polled.blkdevDirectIoSimple(read(), true, 0).bio();
    assertEquals(2, failed.id(), "a bio on the stack for each read");
    failed.setStatus(-5);
    polled.submitBioReturned(List.of(failed), List.of(), 0);
    assertEquals(-5, polled.preadv2Returned(), "-EIO");
    assertEquals(2, polled.calls());
    assertEquals(2, polled.returned());
  }

  @Test
  void theBooksShouldFindEveryPreadv2ReturnedAndItsBioOffTheStack() {
    Bio bio = polled.blkdevDirectIoSimple(read(), true, 0).bio();
    Books open = new Books();
    polled.audit(open, "cpu0", 0, 1);
    assertEquals(2, open.violations().size(), "a call that did not return, its bio in use");
    polled.submitBioReturned(List.of(bio), List.of(), 0);
    polled.preadv2Returned();
    Books closed = new Books();
    polled.audit(closed, "cpu0", 1, 1);
    assertTrue(closed.balanced(), closed.violations().toString());
  }
}

package blksim.queues.fs.aio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.Sqe;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * io_submit of libaio reads down to their bios' submission, and the completion of those that end at
 * once (fs/aio.c 5.16; docs/kernel.md section 11).
 */
class IoSubmitTest {

  @Test
  void ioSubmitShouldRunTheSyscallOnceAndIoSubmitOneForEachIocb() {
    AioModels b = new AioModels(64);
    AioCall.AllocBios a =
        assertInstanceOf(AioCall.AllocBios.class, b.submit.ioSubmit(b.iocbs(5), 100));
    assertEquals(5, a.nr(), "a bio for each iocb");
    for (KernelFn fn : new KernelFn[] {KernelFn.SYSCALL, KernelFn.IO_SUBMIT}) {
      assertEquals(1, b.calls(fn), fn.name());
    }
    for (KernelFn fn : IoSubmit.IO_SUBMIT_ONE_PATH) {
      if (fn != KernelFn.RCU_READ_LOCK_AIO && fn != KernelFn.RCU_READ_UNLOCK_AIO) {
        assertEquals(5, b.calls(fn), fn.name());
      }
    }
    assertEquals(
        3 + 5, b.calls(KernelFn.RCU_READ_LOCK_AIO), "three RCU sections a call, one an iocb");
    assertEquals(
        100 + b.price(IoSubmit.IO_SUBMIT_PATH) + 5 * b.price(IoSubmit.IO_SUBMIT_ONE_PATH),
        a.atPs(),
        "the allocation comes after what it charged");
  }

  @Test
  void aioGetReqShouldTakeARequestForEachIocb() {
    AioModels b = new AioModels(64);
    AioCall.SubmitBios s = b.submitted(4);
    assertEquals(4, b.ctx.submitted());
    assertEquals(4, b.ctx.inFlight());
    assertEquals(4, s.reqs().size());
    for (AioKiocb req : s.reqs()) {
      assertSame(b.ctx, req.ctx(), "ki_ctx");
    }
  }

  @Test
  void aioGetReqShouldRefuseMoreRequestsInFlightThanTheRingHasEvents() {
    AioModels b = new AioModels(4);
    List<Sqe> five = b.iocbs(5);
    assertThrows(InvariantBroken.class, () -> b.submit.ioSubmit(five, 0));
  }

  @Test
  void ioSubmitOfNoIocbShouldReturnAtOnce() {
    AioModels b = new AioModels(64);
    AioCall.Return r = assertInstanceOf(AioCall.Return.class, b.submit.ioSubmit(List.of(), 100));
    assertEquals(100 + b.price(IoSubmit.IO_SUBMIT_PATH), r.atPs(), "the syscall's own work only");
    assertEquals(0, b.calls(KernelFn.IO_SUBMIT_ONE));
    assertEquals(0, b.ctx.submitted());
  }

  @Test
  void anAioReadsBioShouldComeFromTheMempoolNotThePerCpuCache() {
    AioModels b = new AioModels(64);
    for (Bio cached : b.bios(4, true)) {
      b.bioSet.bioPut(AioModels.CPU, cached);
    }
    AioCall.AllocBios a = (AioCall.AllocBios) b.submit.ioSubmit(b.iocbs(2), 0);
    for (Bio bio : b.bios(a)) {
      assertFalse(bio.percpuCache(), "aio_prep_rw sets no IOCB_ALLOC_CACHE: no BIO_PERCPU_CACHE");
    }
    assertEquals(0, b.bioSet.cacheHits(), "the four bios in the CPU's cache stay there");
    assertEquals(4 + 2, b.bioSet.mempoolAllocs());
  }

  @Test
  void blkdevDirectIoAsyncShouldSetTheBioUpWithItsRangeAndTheRequestInDioIocb() {
    AioModels b = new AioModels(64);
    AioCall.SubmitBios s = b.submitted(3);
    for (int i = 0; i < 3; i++) {
      Bio bio = s.bios().get(i);
      AioKiocb req = s.reqs().get(i);
      assertSame(req, bio.owner(), "dio->iocb: its ki_complete is aio_complete_rw");
      assertEquals(req.iocb().off() >> 9, bio.sector());
      assertEquals(AioModels.BS, bio.sizeBytes());
    }
  }

  @Test
  void eachAioReadsBioShouldPinItsUserPages() {
    AioModels b = new AioModels(64);
    AioCall.AllocBios a = (AioCall.AllocBios) b.submit.ioSubmit(b.iocbs(4), 0);
    AioCall.SubmitBios s = b.submit.bioAllocated(b.bios(a), a.atPs());
    for (KernelFn fn : IoRw.PAGES_PATH) {
      assertEquals(4, b.calls(fn), fn.name());
    }
    assertEquals(a.atPs() + 4 * b.price(IoRw.PAGES_PATH), s.atPs());
  }

  @Test
  void aBioThatEndedInQueueRqShouldPostItsEventBeforeIoSubmitReturns() {
    AioModels b = new AioModels(64);
    AioCall.SubmitBios s = b.submitted(4);
    List<Bio> ended = s.bios().subList(0, 3);
    long t = b.submit.submitBioReturned(ended, List.of(), 1000);
    assertEquals(3, b.ctx.available(), "aio_complete_rw: three events in the ring");
    assertEquals(1, b.ctx.inFlight(), "the fourth ends by its timer");
    for (KernelFn fn :
        new KernelFn[] {KernelFn.BLKDEV_BIO_END_IO_ASYNC, KernelFn.AIO_COMPLETE_RW}) {
      assertEquals(3, b.calls(fn), fn.name());
    }
    assertEquals(1000 + 3 * b.price(AioKiocb.END_IO_PATH), t);
    assertEquals(b.ctx.submitted(), b.ctx.completed() + 1);
  }

  @Test
  void anEventShouldCarryTheIocbsDataAndTheBiosResult() {
    AioModels b = new AioModels(64);
    AioCall.SubmitBios s = b.submitted(2);
    s.bios().get(1).setStatus(-5);
    b.submit.submitBioReturned(s.bios(), List.of(), 0);
    List<IoEvent> events = b.ctx.readEvents(2);
    assertEquals(AioModels.BS, events.get(0).res(), "the bytes read");
    assertEquals(-5, events.get(1).res(), "-EIO");
    assertEquals(s.reqs().get(0).iocb().userData(), events.get(0).data(), "aio_data");
  }

  @Test
  void anAioBioShouldNeverEndWithEagain() {
    AioModels b = new AioModels(64);
    AioCall.SubmitBios s = b.submitted(2);
    List<Bio> failed = s.bios().subList(1, 2);
    assertThrows(InvariantBroken.class, () -> b.submit.submitBioReturned(List.of(), failed, 0));
  }

  @Test
  void aioCompleteRwShouldPostTheEventToTheRequestsContextWhereverTheBioEnds() {
    AioModels b = new AioModels(64);
    AioCall.SubmitBios s = b.submitted(2);
    AioKiocb req = s.reqs().get(1);
    assertSame(AioKiocb.END_IO_PATH, req.aioCompleteRw(AioModels.BS), "in the timer's interrupt");
    assertEquals(1, b.ctx.available());
    assertEquals(1, b.ctx.inFlight());
  }

  @Test
  void aCompletionOfARequestOfAnotherContextShouldBeRefused() {
    AioModels mine = new AioModels(64);
    AioModels theirs = new AioModels(64);
    AioCall.SubmitBios s = theirs.submitted(1);
    assertThrows(
        InvariantBroken.class, () -> mine.submit.submitBioReturned(s.bios(), List.of(), 0));
  }
}

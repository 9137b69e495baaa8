package blksim.queues.fs.aio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import blksim.queues.cost.KernelFn;
import org.junit.jupiter.api.Test;

/**
 * io_getevents and read_events of a libaio context (fs/aio.c 5.16; docs/kernel.md section 11):
 * t/io_uring asks for {@code min_nr = nr = to_wait} events.
 */
class ReadEventsTest {

  @Test
  void ioGeteventsShouldCopyMinNrEventsOutOldestFirstChargingTheCopyPerEvent() {
    AioModels b = new AioModels(64);
    AioCall.SubmitBios s = b.submittedAndEnded(4, 4);
    AioCall.Events e = assertInstanceOf(AioCall.Events.class, b.events.ioGetevents(4, 1000));
    assertEquals(4, e.events().size());
    for (int i = 0; i < 4; i++) {
      assertEquals(s.reqs().get(i).iocb().userData(), e.events().get(i).data());
    }
    assertEquals(
        4,
        b.calls(KernelFn.AIO_READ_EVENTS_RING),
        "blksim charges aio_read_events_ring per event copied; the kernel calls it once a look");
    assertEquals(1, b.calls(KernelFn.IO_GETEVENTS), "the syscall's own work, once");
    assertEquals(
        1000 + b.price(ReadEvents.IO_GETEVENTS_PATH) + 4 * b.price(KernelFn.AIO_READ_EVENTS_RING),
        e.atPs());
    assertEquals(4, b.ctx.read());
    assertEquals(0, b.ctx.available());
  }

  @Test
  void ioGeteventsShouldCopyNoMoreThanNrEvents() {
    AioModels b = new AioModels(64);
    b.submittedAndEnded(5, 5);
    AioCall.Events e = assertInstanceOf(AioCall.Events.class, b.events.ioGetevents(3, 0));
    assertEquals(3, e.events().size(), "nr = min_nr = 3");
    assertEquals(2, b.ctx.available(), "the rest stay in the ring for the next call");
  }

  @Test
  void readEventsShouldSleepOnCtxWaitWhileFewerThanMinNrEventsHaveCome() {
    AioModels b = new AioModels(64);
    b.submittedAndEnded(4, 2);
    AioCall.Sleep s = assertInstanceOf(AioCall.Sleep.class, b.events.ioGetevents(4, 1000));
    assertEquals(
        1000 + b.price(ReadEvents.IO_GETEVENTS_PATH) + b.price(KernelFn.SCHEDULE), s.atPs());
  }

  @Test
  void aLookThatFindsFewerThanMinNrShouldCopyNoneOfThemInBlksimsSimplification() {
    AioModels b = new AioModels(64);
    b.submittedAndEnded(4, 2);
    b.events.ioGetevents(4, 1000);
    assertEquals(2, b.ctx.available(), "both stay in the ring; the kernel's look would copy them");
    assertEquals(0, b.ctx.read());
    assertEquals(0, b.calls(KernelFn.AIO_READ_EVENTS_RING), "nor charges the copy");
  }

  @Test
  void aTaskAnAioCompleteWokeShouldLookAtTheRingAgain() {
    AioModels b = new AioModels(64);
    AioCall.SubmitBios s = b.submittedAndEnded(4, 2);
    b.events.ioGetevents(4, 0);
    s.reqs().get(2).aioCompleteRw(AioModels.BS);
    AioCall.Sleep again = assertInstanceOf(AioCall.Sleep.class, b.events.scheduled(2000));
    assertEquals(2000 + 2 * b.price(KernelFn.SCHEDULE), again.atPs(), "three of four: again");
    s.reqs().get(3).aioCompleteRw(AioModels.BS);
    AioCall.Events e = assertInstanceOf(AioCall.Events.class, b.events.scheduled(3000));
    assertEquals(4, e.events().size(), "the min_nr of the call, kept across its sleeps");
    assertEquals(
        3000 + b.price(KernelFn.SCHEDULE) + 4 * b.price(KernelFn.AIO_READ_EVENTS_RING), e.atPs());
    assertEquals(1, b.calls(KernelFn.IO_GETEVENTS), "one call, woken twice");
  }

  @Test
  void waitingForMoreEventsThanTheRingAndTheRequestsInFlightCanBringShouldHang() {
    AioModels b = new AioModels(64);
    b.submittedAndEnded(2, 1);
    AioCall.Hang h = assertInstanceOf(AioCall.Hang.class, b.events.ioGetevents(3, 1000));
    assertEquals(3, h.minNr());
    assertEquals(1, h.available(), "in the ring, with one more to come: two of three");
    assertEquals(1000 + b.price(ReadEvents.IO_GETEVENTS_PATH), h.atPs(), "no schedule()");
    assertEquals(0, b.calls(KernelFn.SCHEDULE));
  }
}

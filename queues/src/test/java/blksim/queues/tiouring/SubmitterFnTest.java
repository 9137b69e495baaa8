package blksim.queues.tiouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.IoUringSettings;
import blksim.config.Scenario;
import blksim.queues.io_uring.IoRw;
import org.junit.jupiter.api.Test;

/** Which loop a t/io_uring thread runs, and what setup_ring and setup_aio make of it. */
class SubmitterFnTest {
  private static IoUringSettings u(String... sets) {
    Scenario s = new Scenario();
    for (String set : sets) {
      s.set("io-uring." + set);
    }
    return s.settings().ioUring();
  }

  @Test
  void syncComesBeforeAioAndAioBeforeTheRing() {
    assertEquals(SubmitterFn.IO_URING, SubmitterFn.of(u()));
    assertEquals(SubmitterFn.NOP, SubmitterFn.of(u("nop=true")));
    assertEquals(SubmitterFn.AIO, SubmitterFn.of(u("aio=true", "nop=true")));
    assertEquals(SubmitterFn.PREADV2, SubmitterFn.of(u("sync-io=true", "aio=true")));
    assertTrue(SubmitterFn.NOP.ring());
    assertFalse(SubmitterFn.AIO.ring());
  }

  @Test
  void iopollIsForARingsReadsOnly() {
    assertTrue(SubmitterFn.IO_URING.iopoll(u("polled=true")));
    assertFalse(SubmitterFn.IO_URING.iopoll(u("polled=false")));
    assertFalse(SubmitterFn.NOP.iopoll(u("polled=true")), "polled && !do_nop");
    assertFalse(SubmitterFn.PREADV2.iopoll(u("polled=true")), "-S1 -p1 is RWF_HIPRI, no ring");
  }

  @Test
  void registeredBuffersAreARingsAndTheirBioNeedsNoVec() {
    IoUringSettings fixed = u("fixed-buffers=true", "block-size=16384");
    assertEquals(0, SubmitterFn.IO_URING.nrVecs(fixed), "the registered buffer's bvec");
    assertEquals(4, SubmitterFn.AIO.nrVecs(fixed), "setup_aio turns fixedbufs off: four pages");
    assertEquals(1, SubmitterFn.PREADV2.nrVecs(u("fixed-buffers=true", "block-size=512")));
    assertEquals(2, SubmitterFn.pagesPerIo(u("block-size=4097")), "rounded up");
  }

  @Test
  void iocbAllocCacheIsAnIopollRingsOrEveryReadsWithTheIrqListSeries() {
    assertTrue(IoRw.allocCache(true, false));
    assertFalse(IoRw.allocCache(false, false), "5.16: an interrupt's bio_put cannot use it");
    assertTrue(IoRw.allocCache(false, true), "bio-cache-irq-list");
  }

  @Test
  void aLibaioContextHoldsDepthRoundedUpToAPowerOfTwo() {
    assertEquals(32, SubmitterFn.aioEvents(32));
    assertEquals(64, SubmitterFn.aioEvents(33));
    assertEquals(128, SubmitterFn.aioEvents(128));
  }
}

package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.KernelFn;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A read between the ring and the block layer (fs/io_uring.c 5.16 {@code io_read}, {@code
 * io_complete_rw}, {@code io_complete_rw_iopoll}; block/fops.c 5.16 {@code
 * __blkdev_direct_IO_async}; docs/kernel.md sections 6 and 8).
 */
class IoRwTest {
  private final SubmittedReads reads = new SubmittedReads(4);

  @Test
  void blkdevDirectIoAsyncShouldSetUpAPolledNowaitBioOnAnIopollRing() {
    IoKiocb req = reads.read(8192);
    Bio bio = Bio.onStack(1);
    assertTrue(IoRw.blkdevDirectIoAsync(bio, req, true, true, true), "to the poll queue");
    assertEquals(16, bio.sector());
    assertEquals(4096, bio.sizeBytes());
    assertSame(req, bio.owner());
    assertSame(bio, req.kiocbPrivate());
    assertTrue(bio.polled());
    assertTrue(bio.nowait());
  }

  @Test
  void ioWqsIssueShouldHaveNoNowait() {
    Bio bio = Bio.onStack(1);
    assertFalse(IoRw.blkdevDirectIoAsync(bio, reads.read(0), false, false, true));
    assertFalse(bio.polled());
    assertFalse(bio.nowait(), "a ring without IOPOLL, issued by io-wq: it may sleep for a tag");
  }

  @Test
  void aQueueWithoutPollSupportShouldClearThePollingButKeepNowait() {
    Bio bio = Bio.onStack(1);
    assertFalse(
        IoRw.blkdevDirectIoAsync(bio, reads.read(0), true, false, false), "a default queue");
    assertFalse(bio.polled(), "bio_clear_polled");
    assertTrue(bio.nowait(), "what bio_set_polled gave it stays: io-wq's reissue retries");
  }

  @Test
  void kiCompleteShouldQueueTaskWorkOnlyOnARingWithoutIopoll() {
    IoKiocb polled = reads.read(0);
    assertSame(IoRw.END_IO_PATH, new IoRw(reads.ring, true).kiComplete(polled, 512));
    assertEquals(IoKiocb.State.COMPLETED, polled.state());
    assertEquals(0, reads.ring.taskWorkPending(), "io_complete_rw_iopoll: the next poll finds it");
    IoKiocb irq = reads.read(512);
    assertSame(IoRw.IRQ_END_PATH, new IoRw(reads.ring, false).kiComplete(irq, 512));
    assertEquals(1, reads.ring.taskWorkPending(), "io_complete_rw: io_req_task_work_add");
  }

  @Test
  void aRequestShouldCompleteWithItsSizeOrItsBiosError() {
    Bio bio = Bio.onStack(1);
    IoRw.blkdevDirectIoAsync(bio, reads.read(0), true, true, true);
    assertEquals(4096, IoRw.res(bio));
    bio.setStatus(-11);
    assertEquals(-11, IoRw.res(bio));
  }

  @Test
  void ioReadShouldReissueTheRequestsWhoseBioFoundNoTagInThisSubmission() {
    IoKiocb a = reads.read(0);
    IoKiocb b = reads.read(4096);
    IoKiocb c = reads.read(8192);
    Bio ba = Bio.onStack(1);
    Bio bb = Bio.onStack(2);
    Bio bc = Bio.onStack(3);
    IoRw.blkdevDirectIoAsync(ba, a, true, true, true);
    IoRw.blkdevDirectIoAsync(bb, b, true, true, true);
    IoRw.blkdevDirectIoAsync(bc, c, true, true, true);
    // b's bio ended on another CPU's poll and, handed out again, failed there: its status says
    // -EAGAIN, but it found its tag in this submission
    bb.setStatus(-11);
    assertEquals(
        List.of(a, c),
        IoRw.reissued(List.of(a, b, c), List.of(bc, ba)),
        "REQ_F_REISSUE for the bios of wouldBlock, in the submission's order");
    assertEquals(List.of(), IoRw.reissued(List.of(a, b, c), List.of()));
  }

  @Test
  void theEndPathShouldBeTheRingsChoiceWhereverTheBioEnds() {
    List<KernelFn> iopoll = List.of(IoRw.endPath(true));
    List<KernelFn> irq = List.of(IoRw.endPath(false));
    assertFalse(
        iopoll.contains(KernelFn.IO_REQ_TASK_WORK_ADD), "io_complete_rw_iopoll: no task_work");
    assertTrue(irq.contains(KernelFn.IO_REQ_TASK_WORK_ADD), "io_complete_rw queues task_work");
    IoRw polled = new IoRw(reads.ring, true);
    assertSame(
        IoRw.endPath(true), polled.kiComplete(reads.read(0), 4096), "on its own CPU the same");
  }
}

package blksim.queues.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The shape's rows as perf's functions on the reference box: row 19's tail in the rows, each split
 * row's functions summing to the row.
 */
class ShapeSplitsTest {
  private static final PathCosts C = ReferenceCosts.of();

  private static double ns(KernelFn... fns) {
    double sum = 0;
    for (KernelFn fn : fns) {
      sum += C.step(fn).ps() / 1000.0;
    }
    return sum;
  }

  @Test
  void theTailShouldBeSpreadOverTheRowsAndNotBeAFunction() {
    for (KernelFn fn : KernelFn.values()) {
      assertTrue(!fn.symbol().startsWith("["), fn.symbol() + " is not a kernel symbol");
    }
    // rows 3 to 18 and the tail, 217.5 + 40 ns, less what the rows' splits gave away to facts
    assertEquals(
        14 * PathCostsTest.TAIL,
        ns(KernelFn.IO_SUBMIT_SQES, KernelFn.RCU_READ_LOCK_RSRC, KernelFn.RCU_READ_UNLOCK_RSRC),
        1e-3,
        "row 3, with the rsrc node reference's RCU section");
    assertEquals(28 * PathCostsTest.TAIL, ns(KernelFn.BLKDEV_BIO_END_IO_ASYNC), 1e-3);
    assertEquals(6, ns(KernelFn.PREP_MORE_IOS_URING), 1e-9, "user space carries none of it");
  }

  @Test
  void eachSplitRowShouldSumToItsRow() {
    double t = PathCostsTest.TAIL;
    assertEquals(
        22 * t,
        ns(KernelFn.IO_ISSUE_SQE, KernelFn.IO_PREP_RW, KernelFn.IO_READ, KernelFn.IO_IMPORT_IOVEC),
        1e-2,
        "row 4");
    assertEquals(3.02 / 12.88 * 22 * t, ns(KernelFn.IO_ISSUE_SQE), 1e-2, "io_issue_sqe's 3.02 %");
    assertEquals(
        7 * t, ns(KernelFn.BIO_IOV_ITER_GET_PAGES, KernelFn.IOV_ITER_ADVANCE), 1e-2, "row 7");
    assertEquals(0.90 / 2.65 * 7 * t, ns(KernelFn.IOV_ITER_ADVANCE), 1e-2, "advance's 0.90 %");
    assertEquals(
        12 * t,
        ns(KernelFn.BIO_QUEUE_ENTER, KernelFn.BLK_QUEUE_EXIT)
            + 3 * ns(KernelFn.RCU_READ_LOCK, KernelFn.RCU_READ_UNLOCK),
        1e-2,
        "row 9: three RCU sections and the two functions' own");
    assertEquals(
        20 * t,
        ns(KernelFn.BLK_MQ_ALLOC_REQUESTS, KernelFn.BLK_MQ_RQ_CTX_INIT, KernelFn.SBITMAP_QUEUE_GET),
        1e-2,
        "row 11");
    assertEquals(0.047 * 149 * t, ns(KernelFn.BLK_MQ_RQ_CTX_INIT), 1e-2, "4.7 % of 149 ns");
    assertEquals(
        16 * t,
        ns(
            KernelFn.BLK_MQ_FLUSH_PLUG_LIST,
            KernelFn.BLK_MQ_START_REQUEST,
            KernelFn.RCU_READ_LOCK_HCTX,
            KernelFn.RCU_READ_UNLOCK_HCTX),
        1e-2,
        "row 12: the flush, the start and the issue's hctx_lock section");
    assertEquals(
        ns(KernelFn.RCU_READ_LOCK, KernelFn.RCU_READ_UNLOCK),
        ns(KernelFn.RCU_READ_LOCK_HCTX, KernelFn.RCU_READ_UNLOCK_HCTX),
        1e-9,
        "a section is a section");
    assertEquals(
        13.25 * t,
        ns(KernelFn.BLK_MQ_END_REQUEST, KernelFn.BLK_MQ_FREE_REQUEST, KernelFn.SBITMAP_QUEUE_CLEAR),
        1e-2,
        "row 16 less the non-stat calls");
    assertEquals(1.25 + 4.5 + 1.25, ns(KernelFn.SBITMAP_QUEUE_CLEAR), 1e-3, "a call, an atomic");
  }
}

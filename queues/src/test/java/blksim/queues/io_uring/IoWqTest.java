package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.books.Books;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One ring's io-wq (fs/io-wq.c 5.16 {@code io_wq_enqueue}, {@code io_worker_handle_work}, fs/
 * io_uring.c {@code io_wq_submit_work}; docs/kernel.md section 11): its worker's list and sleep.
 */
class IoWqTest {
  private final SubmittedReads reads = new SubmittedReads(8);

  @Test
  void aPuntShouldWakeTheWorkerOnlyWhenItSleeps() {
    IoWq wq = new IoWq();
    assertTrue(wq.sleeping(), "created asleep: the first punt makes it run");
    assertTrue(wq.enqueue(List.of(reads.read(0))), "io_wqe_activate_free_worker");
    assertFalse(wq.enqueue(List.of(reads.read(4096))), "awake: the request waits behind the head");
    assertEquals(1, wq.wakeUps());
    assertEquals(2, wq.enqueued());
  }

  @Test
  void theWorkerShouldIssueItsListHeadFirstAndSleepWhenItIsEmpty() {
    IoWq wq = new IoWq();
    IoKiocb a = reads.read(0);
    IoKiocb b = reads.read(4096);
    wq.enqueue(List.of(a, b));
    assertSame(a, wq.next());
    assertSame(a, wq.issued(), "the head leaves the list once issued");
    assertSame(b, wq.next());
    assertSame(b, wq.issued());
    assertFalse(wq.sleeping());
    assertNull(wq.next(), "nothing left: io_worker_handle_work returns, the worker sleeps");
    assertTrue(wq.sleeping());
    assertTrue(wq.enqueue(List.of(reads.read(8192))), "asleep again: the next punt wakes it");
    assertEquals(2, wq.wakeUps());
  }

  @Test
  void aRetryOnEagainShouldLeaveTheRequestAtTheHead() {
    IoWq wq = new IoWq();
    IoKiocb a = reads.read(0);
    wq.enqueue(List.of(a, reads.read(4096)));
    assertSame(a, wq.next());
    wq.retried(); // -EAGAIN: io_wq_submit_work goes round after cond_resched
    wq.retried();
    assertSame(a, wq.next(), "the same request, issued again");
    assertEquals(2, wq.retries());
    assertEquals(0, wq.issuedCount());
  }

  @Test
  void theBooksShouldFindEveryPuntIssuedAndTheListEmpty() {
    IoWq wq = new IoWq();
    wq.enqueue(List.of(reads.read(0), reads.read(4096)));
    wq.next();
    wq.issued();
    Books left = new Books();
    wq.audit(left, "cpu1-iou-wrk0");
    assertFalse(left.balanced(), "one punt never issued");
    assertEquals(2, left.violations().size(), left.violations().toString());
    wq.next();
    wq.issued();
    Books drained = new Books();
    wq.audit(drained, "cpu1-iou-wrk0");
    assertTrue(drained.balanced(), drained.violations().toString());
  }
}

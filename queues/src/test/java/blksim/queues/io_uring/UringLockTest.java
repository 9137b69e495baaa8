package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ring's uring_lock between its submitter and its io-wq worker (io_iopoll_req_issued). */
class UringLockTest {
  private static final long HOLD = 300; // io_iopoll_req_issued and two lines, in ps

  @Test
  void aWorkerAskingWhileTheSubmitterHoldsItShouldSpinUntilTheSyscallDropsIt() {
    UringLock<String> lock = new UringLock<>(HOLD);
    assertEquals(100, lock.lock(100));
    assertEquals(-1, lock.wants("w", 150));
    assertTrue(lock.contended());
    assertEquals(List.of("w"), lock.unlock(900));
    assertFalse(lock.contended());
  }

  @Test
  void aWorkerThatAskedBeforeTheSubmitterTookItShouldHaveItAtOnce() {
    UringLock<String> lock = new UringLock<>(HOLD);
    lock.lock(200);
    // its mutex_lock came first: the submitter's spins behind it, not the other way round
    assertEquals(150, lock.wants("w", 150));
    assertFalse(lock.contended());
  }

  @Test
  void aWorkerShouldNotHaveItBeforeTheSubmittersLastDrop() {
    UringLock<String> lock = new UringLock<>(HOLD);
    lock.lock(100);
    lock.unlock(500);
    assertEquals(500, lock.wants("w", 400));
  }

  @Test
  void theSubmitterShouldSpinWhileTheWorkerRunsIoIopollReqIssued() {
    UringLock<String> lock = new UringLock<>(HOLD);
    assertEquals(1000, lock.wants("w", 1000));
    assertEquals(1000 + HOLD, lock.lock(1100), "it has the lock when the worker is done");
    assertEquals(2000, lock.lock(2000), "and at once once the worker has let go");
  }

  @Test
  void aWorkerGrantedAtTheDropShouldHoldItAgainstTheNextLock() {
    UringLock<String> lock = new UringLock<>(HOLD);
    lock.lock(0);
    lock.wants("w", 10);
    lock.unlock(100);
    assertEquals(100 + HOLD, lock.lock(120));
  }

  @Test
  void theGapBetweenSubmitAndPollShouldLetAWaitingWorkerIn() {
    UringLock<String> lock = new UringLock<>(HOLD);
    lock.lock(0);
    lock.wants("a", 10);
    lock.wants("b", 20);
    List<String> granted = new ArrayList<>();
    assertEquals(50 + HOLD, lock.relock(50, granted), "io_iopoll_check waits for the worker");
    assertEquals(List.of("a", "b"), granted, "in the order they asked");
  }

  @Test
  void aDropWithNobodyWaitingShouldLeaveTheNextLockFree() {
    UringLock<String> lock = new UringLock<>(HOLD);
    lock.lock(0);
    assertEquals(List.of(), lock.unlock(50));
    assertEquals(60, lock.lock(60));
  }
}

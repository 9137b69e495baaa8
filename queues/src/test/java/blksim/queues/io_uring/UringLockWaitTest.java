package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.ReferenceCosts;
import org.junit.jupiter.api.Test;

/**
 * An io-wq worker's wait for its ring's {@code uring_lock} ({@code io_iopoll_req_issued} with
 * {@code IO_URING_F_UNLOCKED}, kernel/locking/mutex.c's optimistic spin; docs/kernel.md section
 * 14): what of the wait is lock wait on the worker's CPU, and what is not.
 */
class UringLockWaitTest {
  private static final int CPU = 1;
  private final Charger charger = new Charger(ReferenceCosts.of(), "cpu1-iou-wrk0");
  private final UringLockWait lock = new UringLockWait(CPU, charger, 1000);

  private long lockWait() {
    return charger.ledger().time(CPU, CpuTime.LOCK_WAIT);
  }

  @Test
  void theSpinUpToTheGrantShouldBeLockWaitLessTheInterruptsItTook() {
    lock.asked(100);
    assertTrue(lock.waiting(), "its CPU takes an interrupt at once");
    lock.interrupted(20);
    long after = lock.granted(300);
    assertFalse(lock.waiting());
    assertEquals(300 - 100 - 20, lock.waitedPs());
    assertEquals(180, lockWait());
    assertTrue(after > 300, "io_iopoll_req_issued runs under the lock, after the grant");
    assertEquals(
        after - 300, charger.ledger().time(CPU, CpuTime.SUBMIT), "its cost is submit time");
  }

  @Test
  void onceAsleepOnTheMutexTheWaitShouldStopCountingAndSoShouldItsInterrupts() {
    lock.asked(100);
    lock.interrupted(10);
    lock.sleeps(150); // need_resched ended the optimistic spin
    lock.interrupted(500); // the CPU runs others' interrupts while it sleeps
    lock.granted(2_000);
    assertEquals(150 - 100 - 10, lock.waitedPs(), "only the spin is lock wait");
    assertEquals(40, lockWait());
  }

  @Test
  void anInterruptOutsideAWaitShouldNotBeTakenFromTheNext() {
    lock.interrupted(50);
    lock.asked(100);
    lock.granted(100);
    assertEquals(0, lock.waitedPs(), "granted at once");
    assertEquals(0, lockWait(), "no lock wait charged for a wait of nothing");
    lock.asked(200);
    lock.interrupted(30);
    lock.granted(260);
    lock.interrupted(40);
    lock.asked(300);
    lock.granted(310);
    assertEquals(60 - 30 + 10, lock.waitedPs(), "each wait its own interrupts only");
  }
}

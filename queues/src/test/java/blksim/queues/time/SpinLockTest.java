package blksim.queues.time;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SpinLockTest {

  @Test
  void aCpuThatArrivesWhileTheLockIsHeldSpinsUntilItIsFree() {
    SpinLock lock = new SpinLock("poll_lock");
    SpinLock.Acquired a = lock.acquire(0, 1_000, 500, 30_000);
    assertEquals(new SpinLock.Acquired(0, 0, 1_500), a, "first use: no wait, no transfer");
    SpinLock.Acquired b = lock.acquire(1, 1_200, 500, 30_000);
    assertEquals(300, b.waitPs(), "spins until 1 500");
    assertEquals(30_000, b.transferPs(), "the line comes from CPU 0");
    assertEquals(1_500 + 30_000 + 500, b.releasePs());
    SpinLock.Acquired c = lock.acquire(1, 100_000, 500, 30_000);
    assertEquals(new SpinLock.Acquired(0, 0, 100_500), c, "same CPU, free: no wait, no transfer");
    assertEquals(3, lock.acquisitions());
    assertEquals(1, lock.contended());
    assertEquals(300, lock.waitedPs());
  }

  @Test
  void aCpuShouldNeverSpinOnItsOwnHold() {
    SpinLock lock = new SpinLock("poll_lock");
    lock.acquire(0, 1_000, 500, 30_000);
    // back before its hold's end in virtual time (its work since cost less than the hold)
    SpinLock.Acquired again = lock.acquire(0, 1_200, 500, 30_000);
    assertEquals(new SpinLock.Acquired(0, 0, 1_700), again, "program order: it let go first");
    assertEquals(0, lock.contended());
    SpinLock.Acquired other = lock.acquire(1, 1_300, 500, 30_000);
    assertEquals(400, other.waitPs(), "another CPU still waits for the hold to end at 1 700");
  }
}

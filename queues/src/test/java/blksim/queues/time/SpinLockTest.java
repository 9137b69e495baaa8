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
}

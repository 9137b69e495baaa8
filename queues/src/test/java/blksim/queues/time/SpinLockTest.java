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

  @Test
  void anInterleavingLockShouldLetAnotherCpuInBetweenTheHoldsOfARun() {
    SpinLock lock = SpinLock.interleaving("dd->lock");
    // CPU 0's queue run, handled first: holds of 500 at 1 000, 2 000 and 3 000
    for (long t = 1_000; t <= 3_000; t += 1_000) {
      lock.acquire(0, t, 500, 30);
    }
    // CPU 1 arrives at 1 200, handled after: it spins to 1 500, not to 3 500, and takes the line
    SpinLock.Acquired b = lock.acquire(1, 1_200, 400, 30);
    assertEquals(300, b.waitPs());
    assertEquals(30, b.transferPs());
    assertEquals(1_500 + 30 + 400, b.releasePs());
    // a hold that does not fit the gap before CPU 0's next waits for the one after
    SpinLock.Acquired c = lock.acquire(2, 2_100, 950, 30);
    assertEquals(3_500 - 2_100, c.waitPs(), "2 000-2 500 is held, 2 500-3 000 too short");
    assertEquals(2, lock.contended());
  }

  @Test
  void aHoldInsideItsOwnCpusEarlierHoldShouldNotHideThatOne() {
    SpinLock lock = SpinLock.interleaving("dd->lock");
    lock.acquire(0, 10, 40, 0); // CPU 0 holds 10-50
    lock.acquire(0, 20, 10, 0); // and again at 20, in program order after letting go
    SpinLock.Acquired b = lock.acquire(1, 35, 5, 0);
    assertEquals(50 - 35, b.waitPs(), "CPU 1 waits for the end of CPU 0's first hold");
  }
}

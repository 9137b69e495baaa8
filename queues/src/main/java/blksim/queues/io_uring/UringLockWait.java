package blksim.queues.io_uring;

import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;

/**
 * An io-wq worker's wait for its ring's {@code uring_lock} ({@code io_iopoll_req_issued} with
 * {@code IO_URING_F_UNLOCKED}): the mutex spins or sleeps while the submitter polls holding it. The
 * worker's CPU takes its interrupts meanwhile, and their time is not the wait's.
 */
public final class UringLockWait {
  private final int index;
  private final Charger charger;

  /** The mutex word and the IOPOLL list's tail, both last written by the submitter's CPU. */
  private final CostStep lockLines;

  private boolean waiting;
  private long askedAtPs;

  /** When its spin ended in a sleep on the mutex, or -1 while it spins. */
  private long sleptAtPs = -1;

  private long irqPs;
  private long waitedPs;

  public UringLockWait(int index, Charger charger, long lineTransferPs) {
    this.index = index;
    this.charger = charger;
    this.lockLines = new CostStep(Contention.LINES_URING_LOCK, 2 * lineTransferPs);
  }

  /** The worker asks for the lock at {@code t}. */
  public void asked(long t) {
    waiting = true;
    askedAtPs = t;
    sleptAtPs = -1;
    irqPs = 0;
  }

  /**
   * The worker stops spinning at {@code t} and sleeps on the mutex: the wait it spent on its CPU
   * ends there.
   */
  public void sleeps(long t) {
    sleptAtPs = t;
  }

  /** Whether the worker waits for the lock: its CPU takes an interrupt at once. */
  public boolean waiting() {
    return waiting;
  }

  public long askedAtPs() {
    return askedAtPs;
  }

  /** An interrupt took {@code ps} of the CPU; during the wait, that is not the wait's. */
  public void interrupted(long ps) {
    if (waiting && sleptAtPs < 0) {
      irqPs += ps;
    }
  }

  /**
   * The lock is the worker's at {@code at} (or, if it slept on the mutex, it is switched back in at
   * {@code at}): the wait it spun is charged as lock wait, then {@code io_iopoll_req_issued} runs
   * under the lock, after pulling over its lines.
   *
   * @return the time after it
   */
  public long granted(long at) {
    waiting = false;
    long waitPs = (sleptAtPs >= 0 ? sleptAtPs : at) - askedAtPs - irqPs;
    waitedPs += waitPs;
    if (waitPs > 0) {
      charger.charge(
          index, CpuTime.LOCK_WAIT, new CostStep(Contention.LOCK_WAIT_URING_LOCK, waitPs), 1);
    }
    return at
        + charger.charge(index, CpuTime.SUBMIT, KernelFn.IO_IOPOLL_REQ_ISSUED, 1)
        + charger.charge(index, CpuTime.SUBMIT, lockLines, 1);
  }

  /** Time spent waiting for the lock, in ps. */
  public long waitedPs() {
    return waitedPs;
  }
}

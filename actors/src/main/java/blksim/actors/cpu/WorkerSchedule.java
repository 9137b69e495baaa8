package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import java.util.function.LongConsumer;

/**
 * When an io-wq worker runs on its CPU ({@link IoWqWorker}): woken for work or for a tag, asleep
 * when it has no work or no tag, one call of its chain out at a time. The interrupts of its own CPU
 * ({@link WorkerInterrupts}) run at its next step boundary, or at once while it is idle, asleep or
 * waiting for the ring's {@code uring_lock}. A worker on its thread's CPU runs only while that CPU
 * is lent to it ({@link HostCpu}); on an IOPOLL ring it turns there in its {@code -EAGAIN} loop
 * until the tick ends its slice ({@link WorkerSpin}).
 */
final class WorkerSchedule {
  private final String name;
  private final int index;
  private final Charger charger;
  private final HostCpu cpu;

  /** The -EAGAIN loop on the thread's CPU, or null when the worker does not spin there. */
  private final WorkerSpin spin;

  private final UringLockWait lock;
  private final WorkerInterrupts irqs;

  /** A call of the worker's chain is out: an interrupt waits for its reply. */
  private boolean callOut;

  private boolean asleep;
  private long tagSleeps;

  /** When the CPU has finished switching the sleeping worker out: a wake-up cannot start sooner. */
  private long freeAtPs;

  WorkerSchedule(
      String name,
      int index,
      Charger charger,
      HostCpu cpu,
      WorkerSpin spin,
      WorkerIrq irq,
      UringLockWait lock) {
    this.name = name;
    this.index = index;
    this.charger = charger;
    this.cpu = cpu;
    this.spin = spin;
    this.lock = lock;
    this.irqs = new WorkerInterrupts(irq, lock, t -> freeAtPs = Math.max(freeAtPs, t));
  }

  /** The shared CPU is the worker's at {@code at}: what woke it runs. */
  void granted(long at, boolean threadEnded, Outbox out) {
    if (spin != null) {
      spin.picked(at, threadEnded);
    }
    chainReply(at, cpu.granted(), out);
  }

  /**
   * A reply to the worker's chain of calls: a step boundary, where the interrupts that came while
   * the call was out run first; the chain goes on after them.
   */
  void chainReply(long at, LongConsumer go, Outbox out) {
    callOut = false;
    irqs.boundary(at, go, out);
  }

  /** A call of the worker's chain goes out. */
  void callsOut() {
    callOut = true;
  }

  /** Whether an interrupt runs on the worker's CPU. */
  boolean inIrq() {
    return irqs.inIrq();
  }

  /** The interrupt path returned {@code endPs}, or -1 while a call of it is out. */
  void irqReturned(long endPs, Outbox out) {
    irqs.returned(endPs, out);
  }

  /** An interrupt of a driver for what this CPU queued (null_blk's timers). */
  void interrupt(NullBlkActor.Interrupt irq, Outbox out) {
    if (cpu.shared()) {
      throw new InvariantBroken(name + ": an interrupt came to a worker without a CPU of its own");
    }
    irqs.add(irq);
    if (!callOut || asleep || lock.waiting()) {
      // idle, asleep on a tag, or waiting on the uring_lock mutex: the interrupt runs now
      long after = lock.waiting() ? lock.askedAtPs() : freeAtPs;
      irqs.startPending(Math.max(irq.atPs(), after), out);
    }
  }

  /** Asleep on the tag wait queue from {@code t}: the CPU is idle, and takes its interrupts. */
  void sleptOnTag(long t, Outbox out) {
    asleep = true;
    tagSleeps++;
    freeAtPs = t;
    irqs.startPending(t, out);
    cpu.yield(t, out);
  }

  /** Woken for a tag at {@code t}: {@code go} runs when the worker is switched in. */
  void wokenForTag(long t, LongConsumer go, Outbox out) {
    asleep = false;
    if (cpu.running()) {
      chainReply(t, go, out);
    } else {
      cpu.run(t, go, out);
    }
  }

  /** Woken for work at {@code at}: {@code go} runs once the worker is switched in. */
  void wokenForWork(long at, LongConsumer go, Outbox out) {
    if (!irqs.inIrq()) {
      cpu.run(Math.max(at, freeAtPs), t -> go.accept(t + schedule()), out);
    } else {
      // woken while its CPU runs an interrupt: it runs when the interrupt is over
      irqs.stash(t -> go.accept(Math.max(t, at) + schedule()));
    }
  }

  /** No work at {@code t}: the worker sleeps, and its CPU is free once it is switched out. */
  void sleep(long t, Outbox out) {
    freeAtPs = t + schedule();
    cpu.yield(freeAtPs, out);
  }

  /** Whether the worker spins on its thread's CPU when it finds no tag. */
  boolean spins() {
    return spin != null;
  }

  /** The worker's try at {@code t} found no tag on {@code to}: it spins ({@link WorkerSpin}). */
  void spin(
      long t,
      SimRef<BlockDevice.Command> to,
      BlockDevice.Call call,
      SimRef<Cpu.Command> self,
      Outbox out) {
    spin.start(t, to, call, self, out);
  }

  /**
   * Spin {@code id} ends at {@code at} ({@link WorkerSpin#end}); a worker that gives the CPU back
   * to its thread is switched out from then.
   */
  void spinEnds(long id, long at, boolean bySlice, LongConsumer issue, Outbox out) {
    spin.end(id, at, bySlice, issue, t -> freeAtPs = t, out);
  }

  private long schedule() {
    return charger.charge(index, CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
  }

  long freeAtPs() {
    return freeAtPs;
  }

  long tagSleeps() {
    return tagSleeps;
  }

  long spinSlices() {
    return spin == null ? 0 : spin.slicesEnded();
  }

  long spinsEndedByTag() {
    return spin == null ? 0 : spin.tagsSeen();
  }

  long spunPs() {
    return spin == null ? 0 : spin.spunPs();
  }

  void audit(Books books) {
    books.drained(irqs.idle(), name + ": an interrupt on the worker's CPU never finished");
    books.drained(cpu.idle(), name + ": the worker kept its submitter's CPU, or never got it");
  }
}

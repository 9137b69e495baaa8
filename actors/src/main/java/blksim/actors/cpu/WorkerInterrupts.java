package blksim.actors.cpu;

import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The interrupts of an io-wq worker's own CPU ({@link WorkerIrq}): taken at the worker's next step
 * boundary, or at once while it is idle, asleep or spinning on the ring's {@code uring_lock}; the
 * step that waited goes on when they are over.
 */
final class WorkerInterrupts {
  private final WorkerIrq irq;
  private final UringLockWait lock;
  private final LongConsumer ended;
  private final ArrayDeque<NullBlkActor.Interrupt> pending = new ArrayDeque<>();
  private boolean inIrq;
  private LongConsumer stashed;
  private long startPs;

  /**
   * @param ended told when each run of interrupts ends
   */
  WorkerInterrupts(WorkerIrq irq, UringLockWait lock, LongConsumer ended) {
    this.irq = irq;
    this.lock = lock;
    this.ended = ended;
  }

  boolean inIrq() {
    return inIrq;
  }

  /** A step boundary at {@code at}: {@code go} runs now, or after the interrupts that came. */
  void boundary(long at, LongConsumer go, Outbox out) {
    if (inIrq || !pending.isEmpty()) {
      stashed = go;
      if (!inIrq) {
        inIrq = true;
        startPs = at;
        returned(irq.start(at, drain(), true, out), out);
      }
      return;
    }
    go.accept(at);
  }

  /** What the worker does when the running interrupt is over. */
  void stash(LongConsumer go) {
    stashed = go;
  }

  void add(NullBlkActor.Interrupt m) {
    pending.add(m);
  }

  /** The CPU is free for them from {@code t}: the interrupts that wait run. */
  void startPending(long t, Outbox out) {
    if (inIrq || pending.isEmpty()) {
      return;
    }
    long at = Math.max(t, pending.peekFirst().atPs());
    startPs = at;
    inIrq = true;
    returned(irq.start(at, drain(), false, out), out);
  }

  /** The interrupt path returned {@code endPs}, or -1 while a call of it is out. */
  void returned(long endPs, Outbox out) {
    if (endPs < 0) {
      return;
    }
    if (!pending.isEmpty()) {
      returned(irq.more(endPs, drain(), out), out);
      return;
    }
    inIrq = false;
    lock.interrupted(endPs - startPs);
    ended.accept(endPs);
    if (stashed != null) {
      LongConsumer go = stashed;
      stashed = null;
      go.accept(endPs);
    }
  }

  private List<NullBlkActor.Interrupt> drain() {
    List<NullBlkActor.Interrupt> all = new ArrayList<>(pending);
    pending.clear();
    return all;
  }

  /** No interrupt runs or waits, and nothing waits for one. */
  boolean idle() {
    return !inIrq && pending.isEmpty() && stashed == null;
  }
}

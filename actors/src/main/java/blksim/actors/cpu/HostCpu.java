package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.books.InvariantBroken;
import java.util.function.LongConsumer;

/**
 * The CPU an io-wq worker runs on when no CPU is left for it: its submitter's, shared with the
 * thread. The worker runs only while the CPU is lent to it ({@link Cpu.WorkerWants}, {@link
 * Cpu.WorkerGranted}) and gives it back each time it sleeps ({@link Cpu.WorkerYields}). The
 * interrupts of the requests it issues are the CPU's: they run in the thread's interrupt path. A
 * worker with a CPU of its own runs at once.
 */
final class HostCpu {
  private final SimRef<Cpu.Command> host;
  private final String name;
  private boolean running;
  private LongConsumer next;

  /**
   * @param host the submitter's CPU, or null when the worker has a CPU of its own
   */
  HostCpu(SimRef<Cpu.Command> host, String name) {
    this.host = host;
    this.name = name;
  }

  /** Whether the worker shares its submitter's CPU. */
  boolean shared() {
    return host != null;
  }

  /** Whether the worker may run now: on its own CPU, or on the one lent to it. */
  boolean running() {
    return host == null || running;
  }

  /** Runs {@code go} at {@code t} if the worker may run now, else when the CPU is lent to it. */
  void run(long t, LongConsumer go, Outbox out) {
    if (running()) {
      go.accept(t);
      return;
    }
    if (next != null) {
      throw new InvariantBroken(name + ": woken twice while waiting for its CPU");
    }
    next = go;
    out.send(host, new Cpu.WorkerWants(t));
  }

  /**
   * The CPU is lent to the worker.
   *
   * @return what was waiting for it
   */
  LongConsumer granted() {
    if (next == null) {
      throw new InvariantBroken(name + ": given its submitter's CPU with nothing to run");
    }
    running = true;
    LongConsumer go = next;
    next = null;
    return go;
  }

  /** The worker sleeps at {@code t}: a shared CPU goes back to its thread. */
  void yield(long t, Outbox out) {
    if (host != null && running) {
      running = false;
      out.send(host, new Cpu.WorkerYields(t));
    }
  }

  /**
   * The tick ended the worker's slice: it gives the shared CPU back at {@code t} and runs {@code
   * go} when the CPU is lent to it again, after the thread's slice ends at {@code againFromPs}.
   */
  void preempt(long t, long againFromPs, LongConsumer go, Outbox out) {
    if (host == null || !running || next != null) {
      throw new InvariantBroken(name + ": preempted without its submitter's CPU");
    }
    running = false;
    next = go;
    out.send(host, new Cpu.WorkerPreempted(t, againFromPs));
  }

  /** Nothing waits for the CPU. */
  boolean idle() {
    return next == null && !running;
  }
}

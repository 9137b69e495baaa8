package blksim.actors.engine;

import blksim.queues.time.EventQueue;

/**
 * The plain engine: one loop over one {@link EventQueue}, calling each component directly. It
 * delivers the same messages in the same order as {@link AkkaEngine}, so a run prints the same
 * bytes; the ratio of their speeds is what the actors cost.
 */
public final class SequentialEngine implements Engine {
  private final boolean divergeOnPurpose;

  public SequentialEngine() {
    this(false);
  }

  /**
   * @param divergeOnPurpose a test switch ({@code blksim.engine.diverge-on-purpose}): deliver the
   *     second of two messages due at one instant first, so that the output differs from the
   *     actors' and the fuzzer can be seen to catch it
   */
  public SequentialEngine(boolean divergeOnPurpose) {
    this.divergeOnPurpose = divergeOnPurpose;
  }

  @Override
  public EngineRun run(Registry registry) {
    EventQueue queue = new EventQueue();
    for (Sent s : registry.initialMessages()) {
      queue.push(s.message().atPs(), s.target(), s.message());
    }
    BufferedOutbox out = new BufferedOutbox();
    Guard guard = new Guard(registry);
    long delivered = 0;
    while (!queue.isEmpty()) {
      SimMessage message = (SimMessage) queue.pop();
      if (divergeOnPurpose && !queue.isEmpty() && queue.peekTimePs() == queue.lastTimePs()) {
        // the first goes back behind the others of its instant; the second is delivered now
        int firstTarget = queue.lastTarget();
        SimMessage second = (SimMessage) queue.pop();
        queue.push(message.atPs(), firstTarget, message);
        message = second;
      }
      out.reset(queue.lastTimePs());
      Component<?> component = registry.component(queue.lastTarget());
      try {
        Registry.deliver(component, message, out);
      } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
        throw RunAborted.componentFailed(component.name(), queue.lastTimePs(), e);
      }
      out.drainTo(queue);
      delivered++;
      if (guard.delivered(queue)) {
        break;
      }
      if ((delivered & 0xFFFF) == 0 && Thread.currentThread().isInterrupted()) {
        // a caller gave up on this run (blksim fuzz's case timeout): let the thread go
        throw new IllegalStateException(
            "the run was interrupted at " + queue.lastTimePs() + " ps of virtual time");
      }
    }
    return new EngineRun(queue.lastTimePs(), delivered);
  }
}

package blksim.actors.engine;

import blksim.queues.time.EventQueue;

/**
 * The plain engine: one loop over one {@link EventQueue}, calling each component directly. It
 * delivers the same messages in the same order as {@link AkkaEngine}, so a run prints the same
 * bytes; the ratio of their speeds is what the actors cost.
 */
public final class SequentialEngine implements Engine {
  @Override
  public EngineRun run(Registry registry) {
    EventQueue queue = new EventQueue();
    for (Sent s : registry.initialMessages()) {
      queue.push(s.message().atPs(), s.target(), s.message());
    }
    BufferedOutbox out = new BufferedOutbox();
    long delivered = 0;
    while (!queue.isEmpty()) {
      SimMessage message = (SimMessage) queue.pop();
      out.reset(queue.lastTimePs());
      Registry.deliver(registry.component(queue.lastTarget()), message, out);
      out.drainTo(queue);
      delivered++;
    }
    return new EngineRun(queue.lastTimePs(), delivered);
  }
}

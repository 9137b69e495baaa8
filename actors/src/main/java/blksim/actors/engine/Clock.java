package blksim.actors.engine;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import blksim.queues.time.EventQueue;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The clock of the Akka engine: it holds the run's one {@link EventQueue} and delivers one message
 * at a time, the first by (virtual time, sequence), to the component actor it is for; it delivers
 * the next only when that actor has reported what the message made it send ({@link Processed}). The
 * Akka mailboxes only carry messages; the clock alone decides their order, so a run is a pure
 * function of its configuration and seed.
 */
public final class Clock extends AbstractBehavior<Clock.Command> {

  /** Everything the clock understands. */
  public sealed interface Command permits Start, Processed, Failed {}

  /**
   * Starts the run.
   *
   * @param actors the component actors, indexed as in the registry
   */
  public record Start(
      List<ActorRef<? extends SimMessage>> actors, List<Sent> initial, Registry registry)
      implements Command {}

  /** A component handled the message delivered to it and sent these, in order. */
  public record Processed(List<Sent> sent) implements Command {}

  /** A component threw while handling a message: the run ends with this cause. */
  public record Failed(String component, Throwable cause) implements Command {}

  private final EventQueue queue = new EventQueue();
  private final CompletableFuture<Engine.EngineRun> result;
  private List<ActorRef<? extends SimMessage>> actors = List.of();
  private Guard guard;
  private long delivered;

  public static Behavior<Command> create(CompletableFuture<Engine.EngineRun> result) {
    return Behaviors.setup(ctx -> new Clock(ctx, result));
  }

  private Clock(ActorContext<Command> ctx, CompletableFuture<Engine.EngineRun> result) {
    super(ctx);
    this.result = result;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Start.class, this::onStart)
        .onMessage(Processed.class, this::onProcessed)
        .onMessage(Failed.class, this::onFailed)
        .build();
  }

  private Behavior<Command> onStart(Start start) {
    actors = List.copyOf(start.actors());
    guard = new Guard(start.registry());
    return push(start.initial());
  }

  private Behavior<Command> onProcessed(Processed processed) {
    return push(processed.sent());
  }

  private Behavior<Command> onFailed(Failed failed) {
    result.completeExceptionally(
        RunAborted.componentFailed(failed.component(), queue.lastTimePs(), failed.cause()));
    return Behaviors.stopped();
  }

  /**
   * Queues what the last delivery sent, looks at the guard as the sequential engine does after a
   * delivery, and delivers the next message, if any and if the run was not cut.
   */
  private Behavior<Command> push(List<Sent> sent) {
    for (Sent s : sent) {
      queue.push(s.message().atPs(), s.target(), s.message());
    }
    boolean cut = false;
    if (delivered > 0) {
      try {
        cut = guard.delivered(queue);
      } catch (RunAborted stuck) {
        result.completeExceptionally(stuck);
        return Behaviors.stopped();
      }
    }
    if (cut || queue.isEmpty()) {
      result.complete(new Engine.EngineRun(queue.lastTimePs(), delivered));
      return Behaviors.stopped();
    }
    SimMessage next = (SimMessage) queue.pop();
    delivered++;
    tell(actors.get(queue.lastTarget()), next);
    return this;
  }

  @SuppressWarnings("unchecked")
  private static void tell(ActorRef<? extends SimMessage> actor, SimMessage message) {
    ((ActorRef<SimMessage>) actor).tell(message);
  }
}

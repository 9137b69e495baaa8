package blksim.actors.engine;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;

/**
 * The actor shell of a {@link Component}: it hands each message to the component, then reports to
 * the clock what the component sent. It holds no model state of its own.
 */
public final class ComponentActor<M extends SimMessage> extends AbstractBehavior<M> {
  private final ActorRef<Clock.Command> clock;
  private final Component<M> component;
  private final BufferedOutbox out = new BufferedOutbox();

  public static <M extends SimMessage> Behavior<M> create(
      ActorRef<Clock.Command> clock, Component<M> component) {
    return Behaviors.setup(ctx -> new ComponentActor<>(ctx, clock, component));
  }

  private ComponentActor(
      ActorContext<M> ctx, ActorRef<Clock.Command> clock, Component<M> component) {
    super(ctx);
    this.clock = clock;
    this.component = component;
  }

  @Override
  public Receive<M> createReceive() {
    return newReceiveBuilder().onAnyMessage(this::onDelivered).build();
  }

  private Behavior<M> onDelivered(M message) {
    out.reset(message.atPs());
    try {
      component.receive(message, out);
    } catch (Throwable t) { // any failure must reach the clock, or the run would wait forever
      clock.tell(new Clock.Failed(component.name(), t));
      return this;
    }
    clock.tell(new Clock.Processed(out.drain()));
    return this;
  }
}

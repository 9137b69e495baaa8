package blksim.actors.engine;

/**
 * A component whose messages are handled through a table built once, on the first message, by
 * {@link #createHandlers()}, in the manner of Akka's {@code AbstractBehavior.createReceive}.
 */
public abstract class AbstractComponent<M extends SimMessage> implements Component<M> {
  private final String name;
  private Handlers<M> handlers;

  protected AbstractComponent(String name) {
    this.name = name;
  }

  /** The handler of each message type. */
  protected abstract Handlers<M> createHandlers();

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final void receive(M message, Outbox out) {
    if (handlers == null) {
      handlers = createHandlers();
    }
    handlers.dispatch(message, out);
  }
}

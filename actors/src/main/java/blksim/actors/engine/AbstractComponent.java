package blksim.actors.engine;

/**
 * A component whose messages are handled through a table built once, on the first message, by
 * {@link #createHandlers()}, in the manner of Akka's {@code AbstractBehavior.createReceive}.
 */
public abstract class AbstractComponent<M extends SimMessage> implements Component<M> {
  private final String name;
  private final Class<M> protocol;
  private Handlers<M> handlers;

  /**
   * @param protocol the component's sealed protocol: every message it permits must have a handler
   */
  protected AbstractComponent(String name, Class<M> protocol) {
    this.name = name;
    this.protocol = protocol;
  }

  /** The handler of each message type. */
  protected abstract Handlers<M> createHandlers();

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final void checkHandlers() {
    if (handlers == null) {
      handlers = createHandlers();
    }
    handlers.checkCovers(protocol, name);
  }

  @Override
  public final void receive(M message, Outbox out) {
    if (handlers == null) {
      handlers = createHandlers();
    }
    handlers.dispatch(message, out);
  }
}

package blksim.actors.engine;

/** What a component may do while handling a message: read the time and send messages. */
public interface Outbox {
  /** Virtual time of the message being handled, in ps. */
  long nowPs();

  /**
   * Sends {@code message} to {@code to}, to be delivered at {@code message.atPs()}; messages sent
   * at the same time are delivered in the order they were sent.
   *
   * @throws IllegalStateException if {@code message.atPs()} is before {@link #nowPs()}
   */
  <M extends SimMessage> void send(SimRef<M> to, M message);
}

package blksim.actors.engine;

/**
 * A part of the model that handles messages one at a time: a CPU, a hardware queue, a bioset cache,
 * a device. The Akka engine hosts each in its own actor ({@link ComponentActor}); the sequential
 * engine calls it directly. Its state is plain Java, owned by it alone.
 */
public interface Component<M extends SimMessage> {
  /** The name used in actor paths, reports and the books. */
  String name();

  /** Handles one message at virtual time {@code message.atPs()}. */
  void receive(M message, Outbox out);

  /**
   * At start-up: throws if some message of the component's protocol has no handler, so that a
   * message nobody handles fails before the run, not in the middle of it.
   */
  default void checkHandlers() {}
}

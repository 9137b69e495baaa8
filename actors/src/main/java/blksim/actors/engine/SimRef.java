package blksim.actors.engine;

import java.util.function.Function;

/**
 * The address of a component, whichever engine hosts it: an index into the run's {@link Registry},
 * typed by the messages it takes. An adapter ({@link #adapt}) is an address of the same component
 * that takes another type, a callee's reply, and wraps each message into the component's own
 * protocol as it is sent: Akka's {@code messageAdapter} idea, so that a callee names only its own
 * reply type and never its caller's.
 *
 * @param id index in the registry
 * @param name the component's name (cpu0, hctx1, nullb0)
 * @param wrap what a message sent here becomes on delivery (identity for a component's own address)
 */
public record SimRef<M extends SimMessage>(
    int id, String name, Function<? super M, ? extends SimMessage> wrap) {

  /** A component's own address. */
  public SimRef(int id, String name) {
    this(id, name, Function.identity());
  }

  /**
   * An address of the same component for messages of type {@code R}, each wrapped by {@code
   * wrapper} into {@code M}; the wrapped message keeps the time of the one sent.
   */
  public <R extends SimMessage> SimRef<R> adapt(Function<? super R, ? extends M> wrapper) {
    Function<? super M, ? extends SimMessage> own = wrap;
    return new SimRef<>(id, name, r -> own.apply(wrapper.apply(r)));
  }

  /** {@code message} as the component receives it. */
  SimMessage delivered(M message) {
    SimMessage m = wrap.apply(message);
    if (m.atPs() != message.atPs()) {
      throw new IllegalStateException(
          "an adapter of " + name + " moved " + message + " in time, to " + m.atPs() + " ps");
    }
    return m;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SimRef<?> r && r.id == id && r.wrap == wrap;
  }

  @Override
  public int hashCode() {
    return id;
  }

  @Override
  public String toString() {
    return "SimRef[" + id + ", " + name + "]";
  }
}

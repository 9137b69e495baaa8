package blksim.actors.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * The components of a run and the messages that start it. A component's address is reserved before
 * the component is built, so that it can be given its own address and those of others.
 */
public final class Registry {
  private final List<String> names = new ArrayList<>();
  private final List<Component<?>> components = new ArrayList<>();
  private final List<Sent> initial = new ArrayList<>();
  private final Interruption interruption = new Interruption();

  /** Reserves the next address. */
  public <M extends SimMessage> SimRef<M> reserve(String name) {
    names.add(name);
    components.add(null);
    return new SimRef<>(names.size() - 1, name);
  }

  /**
   * Puts {@code component} at the address reserved for it, once it has shown that it handles every
   * message of its protocol.
   */
  public <M extends SimMessage> void bind(SimRef<M> ref, Component<M> component) {
    if (components.get(ref.id()) != null) {
      throw new IllegalStateException(ref.name() + " is bound already");
    }
    component.checkHandlers();
    components.set(ref.id(), component);
  }

  /** Adds a message that starts the run. */
  public <M extends SimMessage> void initial(SimRef<M> to, M message) {
    initial.add(new Sent(to.id(), to.delivered(message)));
  }

  /**
   * Names the component that ends the run when it is interrupted, and the message, built for the
   * virtual time at which the interruption is seen, that tells it to.
   */
  public <M extends SimMessage> void onInterrupt(SimRef<M> to, LongFunction<M> message) {
    interruption.handledBy(to, message);
  }

  /** The run's interruption, which a signal handler may request. */
  public Interruption interruption() {
    return interruption;
  }

  /** The name reserved at {@code id}. */
  public String name(int id) {
    return names.get(id);
  }

  public int size() {
    return components.size();
  }

  /** The component at {@code id}; every address must be bound before a run. */
  public Component<?> component(int id) {
    Component<?> c = components.get(id);
    if (c == null) {
      throw new IllegalStateException(names.get(id) + " was reserved but never bound");
    }
    return c;
  }

  public List<Sent> initialMessages() {
    return List.copyOf(initial);
  }

  /** Delivers {@code message} to the component at {@code id}. */
  @SuppressWarnings("unchecked")
  static void deliver(Component<?> component, SimMessage message, Outbox out) {
    ((Component<SimMessage>) component).receive(message, out);
  }
}

package blksim.actors.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * A component's table of message handlers, by message class, in the style of Akka's receive
 * builder: {@code Handlers.<Command>builder().on(Start.class, this::onStart).build()}.
 */
public final class Handlers<M extends SimMessage> {
  /** Handles one message type. */
  @FunctionalInterface
  public interface Handler<T> {
    void handle(T message, Outbox out);
  }

  private final Map<Class<?>, Handler<?>> table;

  private Handlers(Map<Class<?>, Handler<?>> table) {
    this.table = Map.copyOf(table);
  }

  public static <M extends SimMessage> Builder<M> builder() {
    return new Builder<>();
  }

  /**
   * Calls the handler of {@code message}'s class.
   *
   * @throws IllegalStateException if there is none
   */
  public void dispatch(M message, Outbox out) {
    @SuppressWarnings("unchecked")
    Handler<M> h = (Handler<M>) table.get(message.getClass());
    if (h == null) {
      throw new IllegalStateException("no handler for " + message.getClass().getName());
    }
    h.handle(message, out);
  }

  /**
   * Throws unless every concrete message {@code protocol} permits (through nested sealed types) has
   * a handler.
   */
  void checkCovers(Class<M> protocol, String component) {
    java.util.List<String> missing = new java.util.ArrayList<>();
    java.util.ArrayDeque<Class<?>> todo = new java.util.ArrayDeque<>(java.util.List.of(protocol));
    while (!todo.isEmpty()) {
      Class<?> c = todo.poll();
      if (c.isSealed()) {
        todo.addAll(java.util.List.of(c.getPermittedSubclasses()));
      } else if (!c.isInterface() && !table.containsKey(c)) {
        missing.add(c.getSimpleName());
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          component + " has no handler for " + String.join(", ", missing) + " of its protocol");
    }
  }

  /** Builds a table; one handler per message class. */
  public static final class Builder<M extends SimMessage> {
    private final Map<Class<?>, Handler<?>> table = new HashMap<>();

    public <T extends M> Builder<M> on(Class<T> type, Handler<T> handler) {
      if (table.put(type, handler) != null) {
        throw new IllegalArgumentException("two handlers for " + type.getName());
      }
      return this;
    }

    public Handlers<M> build() {
      return new Handlers<>(table);
    }
  }
}

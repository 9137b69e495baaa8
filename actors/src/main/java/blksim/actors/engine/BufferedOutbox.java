package blksim.actors.engine;

import blksim.queues.time.EventQueue;
import java.util.ArrayList;
import java.util.List;

/** The outbox both engines hand to a component: it keeps the messages sent, in order. */
final class BufferedOutbox implements Outbox {
  private final ArrayList<Sent> sent = new ArrayList<>();
  private long nowPs;

  void reset(long nowPs) {
    this.nowPs = nowPs;
    sent.clear();
  }

  @Override
  public long nowPs() {
    return nowPs;
  }

  @Override
  public <M extends SimMessage> void send(SimRef<M> to, M message) {
    if (message.atPs() < nowPs) {
      throw new IllegalStateException(
          "causality: "
              + message
              + " sent to "
              + to.name()
              + " for "
              + message.atPs()
              + " ps while handling a message at "
              + nowPs
              + " ps");
    }
    sent.add(new Sent(to.id(), to.delivered(message)));
  }

  /** Pushes the messages sent, in order, onto {@code queue}. */
  void drainTo(EventQueue queue) {
    for (Sent s : sent) {
      queue.push(s.message().atPs(), s.target(), s.message());
    }
    sent.clear();
  }

  /** The messages sent, in order, as a new list. */
  List<Sent> drain() {
    List<Sent> out = List.copyOf(sent);
    sent.clear();
    return out;
  }
}

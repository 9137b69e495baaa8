package blksim.actors.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Protocols run one way: replies reach a caller through an adapter; every message is handled. */
class ProtocolTest {
  sealed interface Command extends SimMessage permits Ping, Wrapped {}

  record Ping(long atPs) implements Command {}

  record Wrapped(Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /** A callee's own reply type, which knows nothing of its callers. */
  sealed interface Reply extends SimMessage permits Pong {}

  record Pong(long atPs) implements Reply {}

  static final class OnlyPing extends AbstractComponent<Command> {
    OnlyPing() {
      super("only-ping", Command.class);
    }

    @Override
    protected Handlers<Command> createHandlers() {
      return Handlers.<Command>builder().on(Ping.class, (m, out) -> {}).build();
    }
  }

  @Test
  void shouldRefuseAtStartUpAComponentThatLeavesAMessageOfItsProtocolUnhandled() {
    Registry r = new Registry();
    SimRef<Command> ref = r.reserve("only-ping");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> r.bind(ref, new OnlyPing()));
    assertEquals("only-ping has no handler for Wrapped of its protocol", e.getMessage());
  }

  @Test
  void shouldWrapAReplySentToAnAdapterIntoTheCallersProtocol() {
    SimRef<Command> caller = new SimRef<>(4, "caller");
    SimRef<Reply> replies = caller.adapt(Wrapped::new);
    BufferedOutbox out = new BufferedOutbox();
    out.reset(100);
    out.send(replies, new Pong(150));
    assertEquals(List.of(new Sent(4, new Wrapped(new Pong(150)))), out.drain());
    assertEquals(caller.id(), replies.id());
  }

  @Test
  void shouldRefuseAnAdapterThatMovesAMessageInTime() {
    SimRef<Command> caller = new SimRef<>(4, "caller");
    SimRef<Reply> late = caller.adapt(p -> new Ping(p.atPs() + 1));
    BufferedOutbox out = new BufferedOutbox();
    out.reset(100);
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> out.send(late, new Pong(150)));
    assertTrue(e.getMessage().contains("moved"), e.getMessage());
  }
}

package blksim.actors.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.BehaviorTestKit;
import akka.actor.testkit.typed.javadsl.TestInbox;
import akka.actor.typed.ActorRef;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The clock actor's protocol, run synchronously with BehaviorTestKit. */
class ClockTest {
  record Ping(long atPs, String tag) implements SimMessage {}

  @Test
  void shouldDeliverOneMessageAtATimeByTimeThenSequence() {
    CompletableFuture<Engine.EngineRun> result = new CompletableFuture<>();
    BehaviorTestKit<Clock.Command> clock = BehaviorTestKit.create(Clock.create(result));
    TestInbox<Ping> a = TestInbox.create();
    TestInbox<Ping> b = TestInbox.create();
    List<ActorRef<? extends SimMessage>> actors = List.of(a.getRef(), b.getRef());

    clock.run(
        new Clock.Start(
            actors,
            List.of(
                new Sent(1, new Ping(20, "b-late")),
                new Sent(0, new Ping(10, "a-first")),
                new Sent(1, new Ping(10, "b-same-time-pushed-later"))),
            new Registry()));
    a.expectMessage(new Ping(10, "a-first"));
    assertFalse(b.hasMessages(), "nothing else is delivered before the first is processed");

    clock.run(new Clock.Processed(List.of(new Sent(0, new Ping(10, "a-reply")))));
    b.expectMessage(new Ping(10, "b-same-time-pushed-later"));
    clock.run(new Clock.Processed(List.of()));
    a.expectMessage(new Ping(10, "a-reply"));
    clock.run(new Clock.Processed(List.of()));
    b.expectMessage(new Ping(20, "b-late"));
    assertFalse(result.isDone());
    clock.run(new Clock.Processed(List.of()));
    assertTrue(result.isDone());
    assertEquals(new Engine.EngineRun(20, 4), result.join());
  }

  @Test
  void aFailureShouldEndTheRunWithItsCause() {
    CompletableFuture<Engine.EngineRun> result = new CompletableFuture<>();
    BehaviorTestKit<Clock.Command> clock = BehaviorTestKit.create(Clock.create(result));
    TestInbox<Ping> a = TestInbox.create();
    clock.run(
        new Clock.Start(
            List.of(a.getRef()), List.of(new Sent(0, new Ping(0, "x"))), new Registry()));
    IllegalStateException boom = new IllegalStateException("boom");
    clock.run(new Clock.Failed("a", boom));
    assertTrue(result.isCompletedExceptionally());
    assertFalse(clock.isAlive());
  }
}

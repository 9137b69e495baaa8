package blksim.actors.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A run that cannot go on ends, on either engine, with one line naming the component and the cause:
 * never a wait.
 */
class ContainmentTest {
  record Tick(long atPs) implements SimMessage {}

  /** A component that sends itself a message {@code stepPs} later, and throws at {@code failAt}. */
  static final class Looper implements Component<Tick> {
    private final SimRef<Tick> self;
    private final long stepPs;
    private final long failAt;
    private long seen;

    Looper(SimRef<Tick> self, long stepPs, long failAt) {
      this.self = self;
      this.stepPs = stepPs;
      this.failAt = failAt;
    }

    @Override
    public String name() {
      return self.name();
    }

    @Override
    public void receive(Tick message, Outbox out) {
      if (++seen == failAt) {
        throw new IllegalStateException("boom at " + seen);
      }
      if (seen <= Guard.STUCK_AFTER + 10) {
        out.send(self, new Tick(message.atPs() + stepPs));
      }
    }
  }

  private static Registry looping(long stepPs, long failAt) {
    Registry registry = new Registry();
    SimRef<Tick> ref = registry.reserve("looper");
    registry.bind(ref, new Looper(ref, stepPs, failAt));
    registry.initial(ref, new Tick(0));
    return registry;
  }

  private static final Supplier<Engine> SEQUENTIAL = SequentialEngine::new;
  private static final Supplier<Engine> AKKA =
      () -> new AkkaEngine(BlksimSettings.defaults().engine().akkaConfig());

  private static RunAborted aborted(Supplier<Engine> engine, Registry registry) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> assertThrows(RunAborted.class, () -> engine.get().run(registry)));
  }

  @Test
  void aComponentThatThrowsShouldEndTheRunNamingIt() {
    for (Supplier<Engine> engine : java.util.List.of(SEQUENTIAL, AKKA)) {
      RunAborted e = aborted(engine, looping(1_000, 50));
      assertEquals(RunAborted.Reason.COMPONENT_FAILED, e.reason());
      assertEquals("looper", e.component());
      assertEquals(49_000, e.atPs());
      assertEquals(
          "looper failed at 49 ns of virtual time: IllegalStateException: boom at 50",
          e.getMessage());
    }
  }

  @Test
  void virtualTimeThatStopsShouldEndTheRun() {
    for (Supplier<Engine> engine : java.util.List.of(SEQUENTIAL, AKKA)) {
      RunAborted e = aborted(engine, looping(0, Long.MAX_VALUE));
      assertEquals(RunAborted.Reason.TIME_STUCK, e.reason());
      assertTrue(
          e.getMessage().startsWith("virtual time stopped advancing at 0 ns"), e.getMessage());
      assertTrue(e.getMessage().endsWith("the last for looper"), e.getMessage());
    }
  }

  @Test
  void aLoopThatAdvancesShouldNotBeCalledStuck() {
    Engine.EngineRun run = new SequentialEngine().run(looping(1, Long.MAX_VALUE));
    assertTrue(run.messages() > Guard.STUCK_AFTER, "more deliveries than the watchdog's limit");
  }

  @Test
  void aDispatcherThatCannotStartShouldEndTheRunNotHangIt() {
    Config bogus =
        ConfigFactory.parseString("blksim.engine.dispatcher.type = Bogus")
            .withFallback(BlksimSettings.defaults().engine().akkaConfig());
    RunAborted e = aborted(() -> new AkkaEngine(bogus), looping(1_000, Long.MAX_VALUE));
    assertEquals(RunAborted.Reason.ENGINE_FAILED, e.reason());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }

  @Test
  void anInterruptionShouldBeDeliveredOnceAtTheCurrentTime() {
    Registry registry = looping(1_000, Long.MAX_VALUE);
    SimRef<Tick> stopper = registry.reserve("stopper");
    long[] seenAt = {-1, 0};
    registry.bind(
        stopper,
        new Component<Tick>() {
          @Override
          public String name() {
            return "stopper";
          }

          @Override
          public void receive(Tick m, Outbox out) {
            seenAt[0] = m.atPs();
            seenAt[1]++;
          }
        });
    registry.onInterrupt(stopper, Tick::new);
    registry.interruption().request();
    new SequentialEngine().run(registry);
    assertEquals(1, seenAt[1], "delivered once");
    assertEquals(1024 * 1_000 - 1_000, seenAt[0], "at the time of the delivery it followed");
    assertTrue(registry.interruption().delivered());
  }
}

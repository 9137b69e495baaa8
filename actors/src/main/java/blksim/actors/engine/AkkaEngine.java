package blksim.actors.engine;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import blksim.config.EngineSettings;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.LoggerFactory;

/**
 * The Akka engine: every component in its own actor, and a {@link Clock} actor that orders every
 * message. All of them run on one dispatcher with a single thread and a high throughput ({@code
 * blksim.engine.dispatcher}; docs/model.md section 2), where every hand-off stays on one worker's
 * queue.
 */
public final class AkkaEngine implements Engine {
  /**
   * Akka's own logging and shutdown hooks off, for every actor system blksim starts: the report's
   * bytes are the only output, and a fatal error ends a run with one line, not the JVM.
   */
  public static final String QUIET =
      "akka.loglevel = WARNING\n"
          + "akka.stdout-loglevel = OFF\n"
          + "akka.log-dead-letters = off\n"
          + "akka.log-dead-letters-during-shutdown = off\n"
          + "akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
          + "akka.jvm-shutdown-hooks = off\n"
          // a fatal error in an actor must end the run with one line, not the JVM (docs/model.md 2)
          + "akka.jvm-exit-on-fatal-error = off\n";

  private final Config config;

  /**
   * @param config the run's resolved configuration (with {@code blksim.engine.dispatcher} and
   *     Akka's reference settings)
   */
  public AkkaEngine(Config config) {
    this.config = ConfigFactory.parseString(QUIET).withFallback(config);
  }

  /**
   * The guardian spawns the clock and one actor per component, and starts the clock. (A method, not
   * a lambda block: google-java-format 1.28 and 2.0, which Spotless picks on JDK 17 and 25, lay out
   * a block lambda passed as the sole argument differently.)
   */
  private static Behavior<Void> guardian(
      ActorContext<Void> ctx, Registry registry, CompletableFuture<EngineRun> result) {
    DispatcherSelector sim = DispatcherSelector.fromConfig(EngineSettings.DISPATCHER_PATH);
    ActorRef<Clock.Command> clock = ctx.spawn(Clock.create(result), "clock", sim);
    List<ActorRef<? extends SimMessage>> actors = new ArrayList<>();
    for (int id = 0; id < registry.size(); id++) {
      actors.add(spawn(ctx, clock, registry.component(id), id, sim));
    }
    clock.tell(new Clock.Start(actors, registry.initialMessages(), registry));
    return Behaviors.empty();
  }

  @Override
  public EngineRun run(Registry registry) {
    // SLF4J must be initialised before Akka's threads log, or it prints a "replay" warning.
    LoggerFactory.getILoggerFactory();
    CompletableFuture<EngineRun> result = new CompletableFuture<>();
    ActorSystem<Void> system;
    try {
      system =
          ActorSystem.create(
              Behaviors.setup(ctx -> guardian(ctx, registry, result)), "blksim", config);
    } catch (RuntimeException e) {
      throw RunAborted.engineFailed("the actor system did not start", e);
    }
    // If the guardian or the clock dies, the system stops; nothing else would complete the run.
    system.getWhenTerminated().thenRun(() -> result.completeExceptionally(stoppedEarly()));
    try {
      return result.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the simulation ran", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().join();
    }
  }

  private static RunAborted stoppedEarly() {
    return RunAborted.engineFailed("the actor system stopped before the run ended", null);
  }

  private static <M extends SimMessage> ActorRef<M> spawn(
      ActorContext<Void> ctx,
      ActorRef<Clock.Command> clock,
      Component<M> component,
      int id,
      DispatcherSelector dispatcher) {
    return ctx.spawn(
        ComponentActor.create(clock, component),
        id + "-" + actorName(component.name()),
        dispatcher);
  }

  private static String actorName(String name) {
    return name.replaceAll("[^A-Za-z0-9_.-]", "_");
  }
}

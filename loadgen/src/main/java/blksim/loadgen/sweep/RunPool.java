package blksim.loadgen.sweep;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import akka.japi.Pair;
import akka.stream.javadsl.Sink;
import akka.stream.javadsl.Source;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.slf4j.LoggerFactory;

/**
 * Many runs at once: an akka-stream graph of a {@link Source} of run specifications, {@code
 * mapAsyncUnordered} bounded by the slots, and the results put back into their given order. A run
 * is a pure function of its specification (each builds its own topology, engine and random
 * streams), so running several side by side gives every one the bytes it gives alone.
 *
 * <p>The runs themselves are plain blocking calls on a pool of {@code slots} threads of their own,
 * never on the stream's dispatcher.
 */
public final class RunPool {
  private final int slots;

  /**
   * @param slots how many runs at once (the cores, unless the user says otherwise)
   */
  public RunPool(int slots) {
    if (slots < 1) {
      throw new IllegalArgumentException("slots " + slots + " < 1");
    }
    this.slots = slots;
  }

  /** As many slots as this machine has cores. */
  public static RunPool ofCores() {
    return new RunPool(Runtime.getRuntime().availableProcessors());
  }

  /** How many runs go at once. */
  public int slots() {
    return slots;
  }

  /** What became of one specification: its result, or what its run threw. */
  public record Done<R>(int index, R result, Throwable failure) {
    /** The result, or the run's own exception rethrown as it was thrown. */
    public R get() {
      if (failure instanceof RuntimeException e) {
        throw e;
      }
      if (failure instanceof Error e) {
        throw e;
      }
      if (failure != null) {
        throw new IllegalStateException(failure);
      }
      return result;
    }
  }

  /**
   * Runs {@code run} on every specification, {@link #slots} at once, and returns what became of
   * each in the order given; {@code onDone} hears of each as it ends, in the order they end, on one
   * thread at a time.
   */
  public <S, R> List<Done<R>> runAll(
      List<S> specs, Function<S, R> run, java.util.function.Consumer<Done<R>> onDone) {
    List<Done<R>> done = new ArrayList<>(specs.size());
    for (int i = 0; i < specs.size(); i++) {
      done.add(null);
    }
    if (specs.isEmpty()) {
      return done;
    }
    // SLF4J must be initialised before Akka's threads log, or it prints a "replay" warning.
    LoggerFactory.getILoggerFactory();
    ExecutorService workers = Executors.newFixedThreadPool(slots, RunPool::daemon);
    Config config =
        ConfigFactory.parseString(blksim.actors.engine.AkkaEngine.QUIET)
            .withFallback(ConfigFactory.load());
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "blksim-runs", config);
    try {
      Source.from(specs)
          .zipWithIndex()
          .mapAsyncUnordered(slots, p -> submit(p, run, workers))
          .runWith(Sink.foreach(d -> record(d, done, onDone)), system)
          .toCompletableFuture()
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the runs went", e);
    } catch (ExecutionException e) {
      // only onDone can fail the stream: a run's own failure is its Done
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error r) {
        throw r;
      }
      throw new IllegalStateException(cause);
    } finally {
      workers.shutdownNow();
      system.terminate();
    }
    return done;
  }

  /**
   * Runs every specification and returns the results in the order given; the first failure in that
   * order is thrown.
   */
  public <S, R> List<R> runAll(List<S> specs, Function<S, R> run) {
    List<R> results = new ArrayList<>();
    for (Done<R> d : runAll(specs, run, d -> {})) {
      results.add(d.get());
    }
    return results;
  }

  private static <S, R> CompletableFuture<Done<R>> submit(
      Pair<S, Long> p, Function<S, R> run, ExecutorService workers) {
    int index = Math.toIntExact(p.second());
    return CompletableFuture.supplyAsync(() -> attempt(index, p.first(), run), workers);
  }

  private static <S, R> Done<R> attempt(int index, S spec, Function<S, R> run) {
    try {
      return new Done<>(index, run.apply(spec), null);
    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
      return new Done<>(index, null, e);
    }
  }

  private static <R> void record(
      Done<R> d, List<Done<R>> done, java.util.function.Consumer<Done<R>> onDone) {
    done.set(d.index(), d);
    onDone.accept(d);
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "blksim-run");
    t.setDaemon(true);
    return t;
  }
}

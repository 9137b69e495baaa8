package blksim.actors.engine;

import java.util.function.LongFunction;

/**
 * A request from outside the model to end the run early (SIGINT, SIGTERM), and the message that
 * makes the model end it: t/io_uring's {@code sig_int} sets {@code finish}, and the model's main
 * thread stops its submitters. An engine looks at the request between deliveries and, once, sends
 * that message at the current virtual time; an uninterrupted run never sees it, so it stays a pure
 * function of its configuration. The engine also publishes here, now and then, the virtual time it
 * has reached, for a progress display on another thread.
 *
 * <p>After the message the model drains what it has in flight, which may take long: many threads
 * deep queues on few tags drain for minutes of wall time. Once the drain has had its allowance of
 * wall time since the request, the engine cuts the run: it delivers nothing more, and the run's
 * books account for the I/Os still in flight ({@link blksim.queues.books.Books#cutShort()}). The
 * wall clock is read here only, after a request from outside, so that an uninterrupted run never
 * depends on it.
 */
public final class Interruption {
  /**
   * Wall time the drain may take after the request, before the run is cut: half a second, so that
   * with the summary of a thousand CPUs after it the process ends within two seconds of the signal.
   */
  public static final long DRAIN_WALL_NS = 500_000_000L;

  private volatile boolean requested;
  private volatile long requestedAtNanos;
  private long drainWallNs = DRAIN_WALL_NS;
  private boolean cut;
  private long cutAtPs = -1;

  /** Virtual time the engine has reached, published now and then for a progress display. */
  private volatile long reachedPs;

  private int target = -1;
  private LongFunction<? extends SimMessage> message;
  private boolean sent;
  private long sentAtPs = -1;

  /** Virtual time the run has reached, as last published by the engine (any thread may read). */
  public long reachedPs() {
    return reachedPs;
  }

  void reached(long ps) {
    reachedPs = ps;
  }

  /** Asks the run to end; safe from any thread (a signal handler's). */
  public void request() {
    if (!requested) {
      requestedAtNanos = System.nanoTime();
      requested = true;
    }
  }

  /** Sets the wall time the drain may take after the request (0: cut at the next look). */
  public void drainFor(long wallNs) {
    this.drainWallNs = wallNs;
  }

  public boolean requested() {
    return requested;
  }

  /** Whether the model was told: the run ended early. */
  public boolean delivered() {
    return sent;
  }

  /** Virtual time at which the model was told, in ps; -1 if it was not. */
  public long deliveredAtPs() {
    return sentAtPs;
  }

  /** Whether the engine cut the run before it drained. */
  public boolean cut() {
    return cut;
  }

  /** Virtual time at which the engine cut the run, in ps; -1 if it did not. */
  public long cutAtPs() {
    return cutAtPs;
  }

  /**
   * Whether the run is to be cut at {@code nowPs}: the model was told, and its drain has had its
   * wall time. Once true, the engine delivers nothing more.
   */
  boolean cutDue(long nowPs) {
    if (!sent || cut || System.nanoTime() - requestedAtNanos < drainWallNs) {
      return false;
    }
    cut = true;
    cutAtPs = nowPs;
    return true;
  }

  /** Names the component to tell and the message that tells it, built for the current time. */
  <M extends SimMessage> void handledBy(SimRef<M> to, LongFunction<M> make) {
    this.target = to.id();
    this.message = at -> to.delivered(make.apply(at));
  }

  /** The message to deliver at {@code nowPs}, once, if a request came; else null. */
  Sent due(long nowPs) {
    if (!requested || sent || message == null) {
      return null;
    }
    sent = true;
    sentAtPs = nowPs;
    return new Sent(target, message.apply(nowPs));
  }
}

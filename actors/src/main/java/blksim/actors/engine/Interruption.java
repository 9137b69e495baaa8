package blksim.actors.engine;

import java.util.function.LongFunction;

/**
 * A request from outside the model to end the run early (SIGINT, SIGTERM), and the message that
 * makes the model end it: t/io_uring's {@code sig_int} sets {@code finish}, and the model's main
 * thread stops its submitters. An engine looks at the request between deliveries and, once, sends
 * that message at the current virtual time; an uninterrupted run never sees it, so it stays a pure
 * function of its configuration. The engine also publishes here, now and then, the virtual time it
 * has reached, for a progress display on another thread.
 */
public final class Interruption {
  private volatile boolean requested;

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
    requested = true;
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

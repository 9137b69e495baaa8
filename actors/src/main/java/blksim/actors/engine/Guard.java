package blksim.actors.engine;

import blksim.queues.time.EventQueue;

/**
 * What both engines do after each delivery: a watchdog on virtual time, which ends a run whose
 * messages keep coming due at one instant (a loop whose steps cost nothing), and the look at an
 * {@link Interruption}: its message pushed once requested, and the run cut once its drain has had
 * its wall time.
 */
final class Guard {
  /**
   * Deliveries in a row at one instant before the run is called stuck. Every step of a CPU costs
   * time, so a real burst at one instant is the hand-offs between components that are due together,
   * a few per I/O in flight (tens of thousands at most); a zero-cost loop reaches this in about a
   * second of wall time.
   */
  static final long STUCK_AFTER = 4_000_000L;

  /**
   * Deliveries between two looks at the interruption (a power of two): a volatile read is not free.
   */
  private static final long LOOK_EVERY = 1024;

  private final Registry registry;
  private long instantPs = Long.MIN_VALUE;
  private long atInstant;
  private long delivered;

  Guard(Registry registry) {
    this.registry = registry;
  }

  /**
   * Counts the delivery just made from {@code queue}, and pushes the interruption's message when
   * one is due.
   *
   * @return whether the run is cut here: the engine delivers nothing more
   * @throws RunAborted when virtual time has stopped advancing
   */
  boolean delivered(EventQueue queue) {
    delivered++;
    long now = queue.lastTimePs();
    if (now != instantPs) {
      instantPs = now;
      atInstant = 0;
    }
    if (++atInstant > STUCK_AFTER) {
      throw RunAborted.timeStuck(registry.name(queue.lastTarget()), now, atInstant - 1);
    }
    if ((delivered & (LOOK_EVERY - 1)) == 0) {
      Interruption interruption = registry.interruption();
      interruption.reached(now);
      if (interruption.cutDue(now)) {
        return true;
      }
      Sent s = interruption.due(now);
      if (s != null) {
        queue.push(now, s.target(), s.message());
      }
    }
    return false;
  }
}

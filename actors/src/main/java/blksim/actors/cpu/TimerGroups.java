package blksim.actors.cpu;

import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.actors.nullblk.NullBlkDevice;
import blksim.queues.blkmq.Request;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The expired null_blk timers an interrupt runs, grouped by hardware queue: the timers of one queue
 * end together ({@code __hrtimer_run_queues} runs them one after another, each {@code end_cmd} on
 * its queue), one group after another.
 */
final class TimerGroups {
  /** A hardware queue of a device. */
  private record Queue(SimRef<NullBlkDevice.Command> device, int hctx) {}

  private final ArrayDeque<List<NullBlkDevice.TimerFired>> groups = new ArrayDeque<>();

  /** Adds the timers that fired, grouped by queue in the order each first appears. */
  void add(List<NullBlkDevice.TimerFired> fired) {
    Map<Queue, List<NullBlkDevice.TimerFired>> byHctx = new LinkedHashMap<>();
    for (NullBlkDevice.TimerFired f : fired) {
      byHctx.computeIfAbsent(new Queue(f.device(), f.hctx()), h -> new ArrayList<>()).add(f);
    }
    groups.addAll(byHctx.values());
  }

  /**
   * Asks the first group's device to end its requests, on behalf of {@code exec}.
   *
   * @return whether there was a group
   */
  boolean sendNext(long t, NullBlkDevice.Exec exec, Outbox out) {
    List<NullBlkDevice.TimerFired> g = groups.peekFirst();
    if (g == null) {
      return false;
    }
    List<Request> rqs = new ArrayList<>(g.size());
    for (NullBlkDevice.TimerFired f : g) {
      rqs.add(f.rq());
    }
    NullBlkDevice.TimerFired first = g.get(0);
    out.send(first.device(), new NullBlkDevice.TimersExpired(t, exec, first.hctx(), rqs));
    return true;
  }

  /** The first group's requests have ended. */
  void ended() {
    groups.pollFirst();
  }
}

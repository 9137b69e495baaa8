package blksim.actors.cpu;

import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.block.blk_mq.Request;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The requests an interrupt ends, grouped by hardware queue: the expired null_blk timers of one
 * queue end together ({@code __hrtimer_run_queues} runs them one after another, each {@code
 * end_cmd} on its queue), and so do the requests BLOCK_SOFTIRQ takes off the CPU's list; one group
 * after another.
 */
final class TimerGroups {
  /** A hardware queue of a device, and whether its requests were raised or timed. */
  private record Queue(SimRef<NullBlkActor.Command> device, int hctx, boolean softirq) {}

  private final ArrayDeque<List<NullBlkActor.Interrupt>> groups = new ArrayDeque<>();

  /** Adds what fired or was raised, grouped by queue in the order each first appears. */
  void add(List<? extends NullBlkActor.Interrupt> fired) {
    Map<Queue, List<NullBlkActor.Interrupt>> byHctx = new LinkedHashMap<>();
    for (NullBlkActor.Interrupt f : fired) {
      Queue q = new Queue(f.device(), f.hctx(), f instanceof NullBlkActor.SoftirqRaised);
      byHctx.computeIfAbsent(q, h -> new ArrayList<>()).add(f);
    }
    groups.addAll(byHctx.values());
  }

  /**
   * Asks the first group's device to end its requests, on behalf of {@code exec}: {@code
   * null_cmd_timer_expired} of the timers, or {@code null_complete_rq} of the raised requests.
   *
   * @return whether there was a group
   */
  boolean sendNext(long t, NullBlkActor.Exec exec, Outbox out) {
    List<NullBlkActor.Interrupt> g = groups.peekFirst();
    if (g == null) {
      return false;
    }
    List<Request> rqs = new ArrayList<>(g.size());
    for (NullBlkActor.Interrupt f : g) {
      rqs.addAll(f.rqs());
    }
    NullBlkActor.Interrupt first = g.get(0);
    out.send(
        first.device(),
        first instanceof NullBlkActor.SoftirqRaised
            ? new NullBlkActor.CompleteRqs(t, exec, first.hctx(), rqs)
            : new NullBlkActor.TimersExpired(t, exec, first.hctx(), rqs));
    return true;
  }

  /** The first group's requests have ended. */
  void ended() {
    groups.pollFirst();
  }
}

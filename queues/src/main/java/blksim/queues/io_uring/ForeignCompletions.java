package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * Requests of rings on other CPUs that ended on this one: a poll here, an interrupt, or a {@code
 * queue_rq} here ran their {@code bi_end_io}, and {@code io_complete_rw_iopoll} or {@code
 * io_complete_rw} wrote into their {@code io_kiocb}. A ring is its task's, so each ring's CPU hears
 * of its requests, ring after ring in the order of their owners, each ring's in the order they
 * ended. Telling a ring costs this CPU what bringing the request, its bio and its io_kiocb over
 * costs ({@code PathCosts.remoteCompletion}), per request.
 *
 * <p>The map exists only once a request has come, so that the common case (none) allocates nothing;
 * once told, it is empty again.
 */
public final class ForeignCompletions {
  /** {@code req} ended with {@code res}. */
  public record Completion(IoKiocb req, int res) {}

  /** The requests of one ring ({@link IoKiocb#owner}), which its CPU hears of at {@code atPs}. */
  public record ToRing(int ring, long atPs, List<Completion> completions) {}

  /** What telling the rings came to: the rings' messages, and when this CPU is done with them. */
  public record Told(long atPs, List<ToRing> rings) {}

  private Map<Integer, List<Completion>> byRing;

  /** {@code io_complete_rw_iopoll} or {@code io_complete_rw} wrote {@code res} into {@code req}. */
  public void add(IoKiocb req, int res) {
    if (byRing == null) {
      byRing = new TreeMap<>();
    }
    byRing.computeIfAbsent(req.owner(), k -> new ArrayList<>()).add(new Completion(req, res));
  }

  /** Whether no request came. */
  public boolean isEmpty() {
    return byRing == null;
  }

  /**
   * Each ring hears of its requests from {@code t}, after {@code remote} per request of it is
   * charged to {@code what} on {@code cpu}; nothing is left.
   */
  public Told tell(Charger charger, int cpu, CpuTime what, CostStep remote, long t) {
    if (byRing == null) {
      return new Told(t, List.of());
    }
    List<ToRing> rings = new ArrayList<>(byRing.size());
    for (Map.Entry<Integer, List<Completion>> e : byRing.entrySet()) {
      t += charger.charge(cpu, what, remote, e.getValue().size());
      rings.add(new ToRing(e.getKey(), t, e.getValue()));
    }
    byRing = null;
    return new Told(t, rings);
  }

  /** The completions of {@code bios}, each its request's with the result its bio ended with. */
  public static List<Completion> of(List<Bio> bios) {
    List<Completion> done = new ArrayList<>(bios.size());
    for (Bio bio : bios) {
      done.add(new Completion((IoKiocb) bio.owner(), IoRw.res(bio)));
    }
    return done;
  }

  /**
   * Completions that came to a CPU whose rings {@code here} names, sorted: those of its rings stay,
   * in order; those of other rings go on to their CPUs at {@code t}, ring by ring, at no cost (the
   * io-wq worker's CPU that ended them sent them to its thread's CPU, which runs no such ring).
   *
   * @param mine the completions of rings on this CPU, or null when every one is another's
   */
  public record Sorted(List<Completion> mine, List<ToRing> onward) {}

  /** Sorts {@code came} ({@link Sorted}). */
  public static Sorted sort(List<Completion> came, long t, IntPredicate here) {
    if (came.stream().allMatch(done -> here.test(done.req().owner()))) {
      return new Sorted(came, List.of());
    }
    Map<Integer, List<Completion>> foreign = new TreeMap<>();
    List<Completion> mine = new ArrayList<>(came.size());
    for (Completion done : came) {
      if (here.test(done.req().owner())) {
        mine.add(done);
      } else {
        foreign.computeIfAbsent(done.req().owner(), k -> new ArrayList<>()).add(done);
      }
    }
    List<ToRing> onward = new ArrayList<>(foreign.size());
    foreign.forEach((ring, list) -> onward.add(new ToRing(ring, t, list)));
    return new Sorted(mine.isEmpty() ? null : mine, onward);
  }
}

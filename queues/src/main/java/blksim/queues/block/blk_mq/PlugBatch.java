package blksim.queues.block.blk_mq;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioOwner;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The bios of one submission batch that go to one queue (one hardware queue of a blk-mq disk, or a
 * bio-based disk), and the plug's {@code nr_ios} when they come to it: the first queue's request
 * allocation takes the plug's batch, and every later one a single request ({@code
 * blk_mq_get_new_requests}, 5.16: {@code data.nr_tags = plug->nr_ios; plug->nr_ios = 1}). blksim
 * submits a batch's bios to each queue it spans in turn, in the order each queue first appears.
 *
 * @param <Q> where a group goes
 * @param <R> the requests the bios belong to: io_uring's, or libaio's
 */
public record PlugBatch<Q, R extends BioOwner>(Q to, int plugNrIos, List<R> reqs, List<Bio> bios) {

  /**
   * Groups the batch by the queue {@code queueOf} gives each bio, each group in the order it first
   * appears, each bio beside its request; the first takes the plug's {@code nrIos}.
   */
  public static <Q, R extends BioOwner> Collection<PlugBatch<Q, R>> byQueue(
      List<Bio> bios, List<R> reqs, int nrIos, BiFunction<Bio, R, Q> queueOf) {
    Map<Q, PlugBatch<Q, R>> byQueue = new LinkedHashMap<>();
    for (int i = 0; i < bios.size(); i++) {
      Bio bio = bios.get(i);
      R req = reqs.get(i);
      Q to = queueOf.apply(bio, req);
      PlugBatch<Q, R> g = byQueue.get(to);
      if (g == null) { // no capturing lambda per bio
        int room = bios.size() - i; // the bios left, at most, so that a list grows never
        g =
            new PlugBatch<>(
                to, byQueue.isEmpty() ? nrIos : 1, new ArrayList<>(room), new ArrayList<>(room));
        byQueue.put(to, g);
      }
      g.reqs().add(req);
      g.bios().add(bio);
    }
    return byQueue.values();
  }
}

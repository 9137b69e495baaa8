package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioOwner;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The requests of a batch that go to one device (one hardware queue of it, for blk-mq), and the
 * plug's {@code nr_ios} when they come to it: the first group's allocation takes the plug's batch.
 * blksim submits a batch's bios to each of the devices it spans in turn, one message each; io_uring
 * says what the plug's {@code nr_ios} is ({@link blksim.queues.io_uring.IoUringEnter#plugNrIos}).
 *
 * @param <R> the requests the bios belong to: io_uring's, or libaio's
 */
record SubmitGroup<R extends BioOwner>(
    SimRef<BlockDevice.Command> to, int plugNrIos, List<R> reqs, List<Bio> bios) {

  /**
   * Sets each bio up ({@code setUp} says where it goes) and groups the batch by where it goes, each
   * group in the order it first appears; the first takes the plug's {@code nrIos}.
   */
  static <R extends BioOwner> Collection<SubmitGroup<R>> of(
      List<Bio> bios,
      List<R> reqs,
      int nrIos,
      BiFunction<Bio, R, SimRef<BlockDevice.Command>> setUp) {
    Map<SimRef<BlockDevice.Command>, SubmitGroup<R>> byHctx = new LinkedHashMap<>();
    for (int i = 0; i < bios.size(); i++) {
      Bio bio = bios.get(i);
      R req = reqs.get(i);
      SimRef<BlockDevice.Command> to = setUp.apply(bio, req);
      SubmitGroup<R> g = byHctx.get(to);
      if (g == null) { // no capturing lambda a bio
        g =
            new SubmitGroup<>(
                to, byHctx.isEmpty() ? nrIos : 1, new ArrayList<>(), new ArrayList<>());
        byHctx.put(to, g);
      }
      g.reqs().add(req);
      g.bios().add(bio);
    }
    return byHctx.values();
  }
}

package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.engine.SimRef;
import blksim.queues.bio.Bio;
import blksim.queues.uring.IoKiocb;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The requests of a batch that go to one device (one hardware queue of it, for blk-mq), and the
 * plug's {@code nr_ios} when they come to it: the first group's allocation takes the plug's batch.
 */
record SubmitGroup(
    SimRef<BlockDevice.Command> to, int plugNrIos, List<IoKiocb> reqs, List<Bio> bios) {

  /**
   * Sets each bio up and groups the batch by where it goes, each group in the order it first
   * appears. io_submit_state_start plugs only more than 2 SQEs (5.16 {@code need_plug}), with
   * {@code nr_ios} the SQEs.
   */
  static Collection<SubmitGroup> of(List<Bio> bios, List<IoKiocb> reqs, CpuCore c) {
    Map<SimRef<BlockDevice.Command>, SubmitGroup> byHctx = new LinkedHashMap<>();
    int nrIos = bios.size() > 2 ? bios.size() : 1;
    for (int i = 0; i < bios.size(); i++) {
      Bio bio = bios.get(i);
      IoKiocb req = reqs.get(i);
      SimRef<BlockDevice.Command> to = CpuCore.setUpBio(bio, req, c.cfg, c.index, true);
      int plug = byHctx.isEmpty() ? nrIos : 1;
      SubmitGroup g =
          byHctx.computeIfAbsent(
              to, h -> new SubmitGroup(h, plug, new ArrayList<>(), new ArrayList<>()));
      g.reqs().add(req);
      g.bios().add(bio);
    }
    return byHctx.values();
  }
}

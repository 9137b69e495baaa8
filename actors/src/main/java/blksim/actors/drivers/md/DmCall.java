package blksim.actors.drivers.md;

import blksim.actors.block.BlockDevice;
import blksim.actors.engine.SimRef;
import blksim.devices.drivers.md.DmIo;
import blksim.queues.block.bio.Bio;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One call of a CPU into a DM device, from the command to the answer. */
final class DmCall {
  enum Kind {
    SUBMIT,
    POLL,
    IRQ
  }

  /** The clones of one submission that go to one disk below (one hardware queue of it). */
  record Group(SimRef<BlockDevice.Command> to, List<Bio> clones) {}

  final Kind kind;
  final BlockDevice.Call call;
  List<Bio> origs;

  /** The polled original's io (POLL). */
  DmIo polling;

  /** Whether md->wq's worker is running on the CPU, resubmitting deferred originals. */
  boolean resubmitting;

  /** Bios handed back as ended: originals that completed, and bios of others a poll found. */
  final List<Bio> ended = new ArrayList<>();

  /** Originals that ended with -EAGAIN, not polled (SUBMIT). */
  final List<Bio> failed = new ArrayList<>();

  /** Clones of completed dm_ios, to be put. */
  final List<Bio> toPut = new ArrayList<>();

  final ArrayDeque<Group> groups = new ArrayDeque<>();
  private final Map<SimRef<BlockDevice.Command>, Group> open = new LinkedHashMap<>();

  DmCall(Kind kind, BlockDevice.Call call, List<Bio> origs) {
    this.kind = kind;
    this.call = call;
    this.origs = origs;
  }

  /** The answer to the call, at {@code t}: what ended, and (a submission) what was turned away. */
  BlockDevice.Reply reply(long t) {
    return switch (kind) {
      case SUBMIT ->
          new BlockDevice.Submitted(
              t, origs.size() - failed.size(), List.copyOf(ended), List.copyOf(failed));
      case POLL -> new BlockDevice.Polled(t, List.copyOf(ended));
      case IRQ -> new BlockDevice.IrqEnded(t, List.copyOf(ended));
    };
  }

  /** A new round of submissions below (the first, or md->wq's): groups start afresh. */
  void newRound() {
    open.clear();
  }

  /**
   * Adds {@code clone} to the group of {@code to}, groups in the order they first appear; under
   * md->wq's worker each clone is a group of its own: dm_wq_work submits without a plug, so each is
   * issued before the next is allocated.
   */
  void group(SimRef<BlockDevice.Command> to, Bio clone) {
    Group g = resubmitting ? null : open.get(to);
    if (g == null) {
      g = new Group(to, new ArrayList<>());
      open.put(to, g);
      groups.addLast(g);
    }
    g.clones().add(clone);
  }
}

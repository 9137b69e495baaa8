package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.SimMessage;

/** A reply to a task that waited for an interrupt to end: the same, at the later time. */
final class StashedReply {
  private StashedReply() {}

  /** The same reply, handled later: after the interrupt that came first. */
  static SimMessage at(SimMessage m, long t) {
    if (m instanceof BioSetActor.Allocated b) {
      return new BioSetActor.Allocated(t, b.bios());
    }
    if (m instanceof BlockDevice.Submitted b) {
      return new BlockDevice.Submitted(t, b.count(), b.ended(), b.wouldBlock());
    }
    if (m instanceof BlockDevice.Woken) {
      return new BlockDevice.Woken(t);
    }
    if (m instanceof BlockDevice.Polled p) {
      return new BlockDevice.Polled(t, p.ended());
    }
    if (m instanceof BioSetActor.Put) {
      return new BioSetActor.Put(t);
    }
    if (m instanceof Cpu.Resume r) {
      return new Cpu.Resume(t, r.slot());
    }
    if (m instanceof Cpu.Resched r) {
      return new Cpu.Resched(t, r.slot());
    }
    if (m instanceof Cpu.UringUnlocked u) {
      return new Cpu.UringUnlocked(t, u.slot());
    }
    throw new IllegalStateException("not a reply to a task: " + m);
  }
}

package blksim.actors.cpu;

import blksim.actors.bioset.BioSetCache;
import blksim.actors.engine.Charger;
import blksim.actors.engine.SimRef;
import blksim.actors.hctx.HwQueue;
import blksim.actors.tiouring.MainThread;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.uring.IoRingCtx;
import blksim.queues.uring.Submitter;
import java.util.List;
import org.HdrHistogram.Histogram;

/** What the thread's path and the interrupt path of one CPU share: its identity, refs and books. */
final class CpuCore {
  final int index;
  final SimRef<Cpu.Command> self;
  final SimRef<BioSetCache.Command> bioset;
  final SimRef<MainThread.Command> main;
  final List<SimRef<HwQueue.Command>> hctxs;
  final Submitter sub;
  final IoRingCtx ring;
  final CpuConfig cfg;
  final PathCosts costs;
  final Charger charger;
  final Histogram latencyNs = new Histogram(3);

  CpuCore(
      int index,
      SimRef<Cpu.Command> self,
      SimRef<BioSetCache.Command> bioset,
      SimRef<MainThread.Command> main,
      List<SimRef<HwQueue.Command>> hctxs,
      Submitter sub,
      IoRingCtx ring,
      CpuConfig cfg,
      PathCosts costs) {
    this.index = index;
    this.self = self;
    this.bioset = bioset;
    this.main = main;
    this.hctxs = List.copyOf(hctxs);
    this.sub = sub;
    this.ring = ring;
    this.cfg = cfg;
    this.costs = costs;
    this.charger = new Charger(costs);
  }

  long charge(CpuTime what, KernelFn fn, int calls) {
    return charger.charge(index, what, fn, calls);
  }

  long charge(CpuTime what, KernelFn[] fns, int calls) {
    return charger.charge(index, what, fns, calls);
  }

  /** A call into a hardware queue on this CPU's behalf. */
  HwQueue.Call call(CpuTime what) {
    return new HwQueue.Call(index, what, self);
  }

  /** The result a request completes with: its size, or the bio's error. */
  static int res(blksim.queues.bio.Bio bio) {
    return bio.status() == 0 ? bio.sizeBytes() : bio.status();
  }
}

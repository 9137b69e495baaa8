package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.md.MappedDeviceActor;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimRef;
import blksim.queues.block.fops.BioEndio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.fs.aio.KioCtx;
import blksim.queues.io_uring.ForeignCompletions;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.kernel.softirq.Ksoftirqd;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every task of one CPU and the CPU's interrupt path share ({@code this_cpu}): its number and
 * address, the charger its interrupts (and its submitter threads) are charged to, its {@code
 * blk_cpu_done} list and ksoftirqd, the rings of the threads it runs, and the components it calls.
 * A CPU that runs an io-wq worker alone has no ring: every request its interrupts end is another
 * CPU's.
 */
final class ThisCpu implements BioEndio.Threads {
  final int index;
  final SimRef<Cpu.Command> self;
  final SimRef<BioSetActor.Command> bioset;
  final SimRef<Cpu.Report> main;
  final PathCosts costs;

  /** Whether the rings are IOPOLL ({@code -p1}): every ring of a run is of one kind. */
  final boolean iopoll;

  /** What the CPU's interrupts cost, and its threads' paths. */
  final Charger charger;

  /** This CPU's {@code blk_cpu_done} and its ksoftirqd. */
  final Ksoftirqd<NullBlkActor.SoftirqRaised> ksoftirqd = new Ksoftirqd<>();

  /** This CPU's address for the interrupts a device raises on it. */
  final SimRef<NullBlkActor.Interrupt> interrupts;

  /** The interrupt path's address for a bioset's answers. */
  final SimRef<BioSetActor.Reply> irqBiosetReplies;

  /** The interrupt path's address for a block device's answers. */
  final SimRef<BlockDevice.Reply> irqBlockReplies;

  /** Every ring's CPU, by the ring's owner. */
  final Map<Integer, SimRef<Cpu.Command>> peers;

  /** The DM devices whose clones this CPU's interrupts may end, by name. */
  final Map<String, SimRef<MappedDeviceActor.Command>> dms;

  /** The threads of this CPU, by their ring's owner (filled as they are made). */
  final Map<Integer, CpuCore> rings = new TreeMap<>();

  /**
   * Completing another ring's request: bio_endio and io_complete_rw_iopoll write its request, its
   * bio and its io_kiocb, three lines another CPU wrote last.
   */
  final CostStep remoteCompletion;

  /**
   * @param charger what the CPU's interrupts are charged to: its threads', or, on a CPU that runs
   *     an io-wq worker alone, the worker's
   */
  ThisCpu(int index, Cpu.Links links, PathCosts costs, Charger charger, boolean iopoll) {
    this.index = index;
    this.iopoll = iopoll;
    this.self = links.self();
    this.bioset = links.bioset();
    this.main = links.main();
    this.costs = costs;
    this.charger = charger;
    this.interrupts = self.adapt(Cpu.FromDevice::new);
    this.irqBiosetReplies = self.adapt(r -> new Cpu.FromBioSet(Cpu.IRQ, r));
    this.irqBlockReplies = self.adapt(r -> new Cpu.FromBlock(Cpu.IRQ, r));
    this.peers = Map.copyOf(links.peers());
    this.dms = Map.copyOf(links.dms());
    this.remoteCompletion = costs.remoteCompletion();
  }

  long charge(CpuTime what, KernelFn fn, int calls) {
    return charger.charge(index, what, fn, calls);
  }

  /**
   * A call of the interrupt path into a block device ({@link BlockDevice.Call#IRQ}, none of the
   * CPU's tasks): its answers come back to that path.
   */
  BlockDevice.Call irqCall(CpuTime what) {
    return new BlockDevice.Call(
        index, BlockDevice.Call.IRQ, what, irqBlockReplies, interrupts, irqBlockReplies);
  }

  /** The thread of this CPU whose ring {@code req} is of. */
  CpuCore taskOf(IoKiocb req) {
    return taskOf(req.owner());
  }

  /** The thread of this CPU whose ring is {@code ringOwner}. */
  CpuCore taskOf(int ringOwner) {
    CpuCore task = rings.get(ringOwner);
    if (task == null) {
      throw new IllegalStateException(self.name() + ": ring " + ringOwner + " is not on this CPU");
    }
    return task;
  }

  /** The thread of this CPU whose libaio context is {@code ctx}. */
  CpuCore taskOf(KioCtx ctx) {
    for (CpuCore task : rings.values()) {
      if (task.aio == ctx) {
        return task;
      }
    }
    throw new IllegalStateException(self.name() + ": an aio context not of this CPU");
  }

  /** The end of the bios one completion here ended, charged to {@code what} ({@link BioEndio}). */
  BioEndio bioEndio(CpuTime what, ForeignCompletions elsewhere) {
    return new BioEndio(charger, index, what, this, elsewhere, iopoll);
  }

  @Override
  public int count() {
    return rings.size();
  }

  @Override
  public int ringSlot(int ringOwner) {
    CpuCore task = rings.get(ringOwner);
    return task == null ? -1 : task.slot;
  }

  @Override
  public int aioSlot(KioCtx ctx) {
    return taskOf(ctx).slot;
  }

  @Override
  public int syncSlot(int owner) {
    return taskOf(owner).slot;
  }

  @Override
  public KernelFn[] kiComplete(int slot, IoKiocb req, int res) {
    return thread(slot).endIo(req, res);
  }

  @Override
  public void ended(int slot, IoKiocb req) {
    thread(slot).task.path.workerCompleted(req);
  }

  @Override
  public boolean wakeIfSleeping(int slot) {
    return thread(slot).task.path.loop().wakeIfSleeping();
  }

  /** The thread of this CPU in {@code slot}. */
  private CpuCore thread(int slot) {
    for (CpuCore task : rings.values()) {
      if (task.slot == slot) {
        return task;
      }
    }
    throw new IllegalStateException(self.name() + " runs no thread in slot " + slot);
  }

  /** Sends each ring its requests ({@link ForeignCompletions.Told}), when this CPU is done. */
  long send(ForeignCompletions.Told told, Outbox out) {
    send(told.rings(), out);
    return told.atPs();
  }

  /** Sends each ring its requests, each at its time. */
  void send(List<ForeignCompletions.ToRing> rings, Outbox out) {
    for (ForeignCompletions.ToRing r : rings) {
      out.send(peers.get(r.ring()), new Cpu.CompletedElsewhere(r.atPs(), r.completions()));
    }
  }

  /**
   * The completions of {@code m} that are this CPU's rings', or null when it had some and none of
   * them is; those of other rings go on to their CPUs ({@link ForeignCompletions#sort}).
   */
  List<ForeignCompletions.Completion> forwardForeign(Cpu.CompletedElsewhere m, Outbox out) {
    ForeignCompletions.Sorted sorted =
        ForeignCompletions.sort(m.completions(), m.atPs(), rings::containsKey);
    for (ForeignCompletions.ToRing r : sorted.onward()) {
      out.send(peers.get(r.ring()), new Cpu.CompletedElsewhere(r.atPs(), r.completions()));
    }
    return sorted.mine();
  }
}

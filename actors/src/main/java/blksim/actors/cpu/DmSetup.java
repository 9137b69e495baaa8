package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.md.MappedDeviceActor;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.PathCosts;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRw;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@code dmsetup} process on a CPU of its own: {@code dmsetup suspend --noflush} of a DM device
 * at one virtual time, {@code dmsetup resume} at another. The resume's md->wq work runs on this
 * CPU: it submits what the suspend deferred, and a bio that ends there (one requeued and submitted
 * again, not polled) completes its io_uring request on the ring's own CPU.
 */
public final class DmSetup extends AbstractComponent<DmSetup.Command> {

  /** Everything the process does. */
  public sealed interface Command extends SimMessage
      permits SuspendAt, ResumeAt, FromDevice, FromBioSet {}

  /** {@code dmsetup suspend --noflush}, at {@code atPs}. */
  public record SuspendAt(long atPs) implements Command {}

  /** {@code dmsetup resume}, at {@code atPs}. */
  public record ResumeAt(long atPs) implements Command {}

  /** The device's answer, through this process's adapter. */
  public record FromDevice(BlockDevice.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /** The bio set's answer, through this process's adapter. */
  public record FromBioSet(BioSetActor.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  private final int cpu;
  private final SimRef<MappedDeviceActor.Command> device;
  private final SimRef<BioSetActor.Command> bioset;
  private final Map<Integer, SimRef<Cpu.Command>> rings;
  private final SimRef<BlockDevice.Reply> deviceReplies;
  private final SimRef<BioSetActor.Reply> biosetReplies;
  private final Charger charger;
  private final CostStep remoteCompletion;
  private int suspends;
  private int resumes;
  private boolean resuming;

  /**
   * @param cpu the CPU it runs on
   * @param bioset the bio set of the originals (raw block device I/O)
   * @param rings each submitter's CPU, by number: where a completion of its ring goes
   */
  public DmSetup(
      int cpu,
      SimRef<Command> self,
      SimRef<MappedDeviceActor.Command> device,
      SimRef<BioSetActor.Command> bioset,
      Map<Integer, SimRef<Cpu.Command>> rings,
      PathCosts costs) {
    super(self.name(), Command.class);
    this.cpu = cpu;
    this.device = device;
    this.bioset = bioset;
    this.rings = Map.copyOf(rings);
    this.deviceReplies = self.adapt(FromDevice::new);
    this.biosetReplies = self.adapt(FromBioSet::new);
    this.charger = new Charger(costs, name());
    this.remoteCompletion =
        new CostStep(Contention.LINES_REMOTE_COMPLETION, 3 * costs.lineTransferPs());
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(SuspendAt.class, this::onSuspend)
        .on(ResumeAt.class, this::onResume)
        .on(FromDevice.class, this::onDeviceReply)
        .on(FromBioSet.class, (m, out) -> resuming = false)
        .build();
  }

  private void onSuspend(SuspendAt m, Outbox out) {
    suspends++;
    out.send(device, new MappedDeviceActor.Suspend(m.atPs()));
  }

  private void onResume(ResumeAt m, Outbox out) {
    resumes++;
    resuming = true;
    out.send(
        device,
        new MappedDeviceActor.Resume(
            m.atPs(),
            // dmsetup is the only task of its CPU
            new BlockDevice.Call(cpu, 0, CpuTime.SUBMIT, deviceReplies, null, null)));
  }

  /** What the resubmission ended at once completes on each request's own ring; bio_put here. */
  private void onDeviceReply(FromDevice m, Outbox out) {
    if (!(m.reply() instanceof BlockDevice.Submitted s) || !s.wouldBlock().isEmpty()) {
      throw new InvariantBroken(name() + ": the resume's submission answered " + m.reply());
    }
    if (s.ended().isEmpty()) {
      resuming = false;
      return;
    }
    long t = s.atPs();
    Map<Integer, List<Cpu.Completion>> byRing = new TreeMap<>();
    for (Bio bio : s.ended()) {
      IoKiocb req = (IoKiocb) bio.owner();
      byRing
          .computeIfAbsent(req.owner(), k -> new ArrayList<>())
          .add(new Cpu.Completion(req, CpuCore.res(bio)));
    }
    t += charger.charge(cpu, CpuTime.SUBMIT, IoRw.END_IO_PATH, s.ended().size());
    for (Map.Entry<Integer, List<Cpu.Completion>> e : byRing.entrySet()) {
      t += charger.charge(cpu, CpuTime.SUBMIT, remoteCompletion, e.getValue().size());
      out.send(rings.get(e.getKey()), new Cpu.CompletedElsewhere(t, e.getValue()));
    }
    out.send(bioset, new BioSetActor.PutBios(t, cpu, CpuTime.SUBMIT, s.ended(), biosetReplies));
  }

  public int index() {
    return cpu;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }

  /** Every suspend was followed by its resume, and the resume's work finished. */
  public void audit(blksim.queues.books.Books books) {
    books.drainedEqual(suspends, resumes, name() + ": suspends vs resumes");
    books.drained(!resuming, name() + ": the resume's work never finished");
  }
}

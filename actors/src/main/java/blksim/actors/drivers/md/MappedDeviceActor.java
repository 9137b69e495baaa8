package blksim.actors.drivers.md;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.BlockDevice.Call;
import blksim.actors.block.Disk;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.devices.drivers.md.DmNext;
import blksim.devices.drivers.md.MappedDevice;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CostLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The actor of a bio-based dm-linear device ({@link MappedDevice}, which holds dm.c's rules and
 * charges): it hands each command to the device's model and turns the {@link DmNext} the model
 * returns into a message: {@code bio_alloc_clone} and {@code bio_put} to the device's {@code
 * io_bs}, {@code submit_bio_noacct} and {@code bio_poll} of clones to the disks below, or the
 * answer to the caller. The answer of io_bs or of a disk below resumes the call where the model
 * left it. A CPU has one call out at a time.
 */
public final class MappedDeviceActor extends AbstractComponent<MappedDeviceActor.Command> {

  /** Everything a DM device understands. */
  public sealed interface Command extends SimMessage
      permits FromUpper, FromLower, FromBioSet, EndClones, Suspend, Resume {}

  /** {@code dmsetup suspend --noflush}: the device stops taking I/O. */
  public record Suspend(long atPs) implements Command {}

  /**
   * {@code dmsetup resume}: the device takes I/O again and md->wq's worker, on {@code call}'s CPU,
   * submits what was deferred; answered with {@link BlockDevice.Submitted} of those bios.
   */
  public record Resume(long atPs, Call call) implements Command {}

  /** A block-device command from a submitter, through this device's adapter. */
  public record FromUpper(BlockDevice.Command command) implements Command {
    @Override
    public long atPs() {
      return command.atPs();
    }
  }

  /** The answer of a disk below to a call made for {@code cpu}. */
  public record FromLower(int cpu, BlockDevice.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /** The answer of this device's {@code io_bs} to a call made for {@code cpu}. */
  public record FromBioSet(int cpu, BioSetActor.Reply reply) implements Command {
    @Override
    public long atPs() {
      return reply.atPs();
    }
  }

  /**
   * An interrupt on {@code call}'s CPU ended these clones of this device's ({@code bio_endio} runs
   * {@code clone_endio}); answered with {@link BlockDevice.IrqEnded} of the originals that
   * completed.
   */
  public record EndClones(long atPs, Call call, List<Bio> clones) implements Command {}

  private final MappedDevice md;
  private final SimRef<BioSetActor.Command> ioBs;
  private final Map<String, Disk> below;
  private final List<SimRef<BlockDevice.Reply>> lowerReplies = new ArrayList<>();
  private final List<SimRef<BioSetActor.Reply>> biosetReplies = new ArrayList<>();

  /** Each CPU's call out, by CPU: who to answer. */
  private final Call[] callers;

  /** Each CPU's call, by CPU, where it waits for io_bs or a disk below. */
  private final DmNext[] waiting;

  /**
   * @param md the device's model, which charges its path
   * @param ioBs the device's bio_set for dm_ios and their clones
   * @param below the disks of the table's targets, by device path
   * @param nrCpus the machine's CPUs
   */
  public MappedDeviceActor(
      SimRef<Command> self,
      MappedDevice md,
      SimRef<BioSetActor.Command> ioBs,
      Map<String, Disk> below,
      int nrCpus) {
    super(self.name(), Command.class);
    this.md = md;
    this.ioBs = ioBs;
    this.below = Map.copyOf(below);
    this.callers = new Call[nrCpus];
    this.waiting = new DmNext[nrCpus];
    for (int cpu = 0; cpu < nrCpus; cpu++) {
      int c = cpu;
      lowerReplies.add(self.adapt(r -> new FromLower(c, r)));
      biosetReplies.add(self.adapt(r -> new FromBioSet(c, r)));
    }
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(FromUpper.class, this::onUpper)
        .on(FromLower.class, this::onLower)
        .on(FromBioSet.class, this::onBioSet)
        .on(EndClones.class, this::onEndClones)
        .on(Suspend.class, (m, out) -> md.suspend())
        .on(Resume.class, this::onResume)
        .build();
  }

  private void onUpper(FromUpper m, Outbox out) {
    if (m.command() instanceof BlockDevice.SubmitBio s) {
      Call c = called(s.call());
      send(md.dmSubmitBio(c.cpu(), c.what(), s.atPs(), s.bios()), out);
    } else {
      BlockDevice.PollBio p = (BlockDevice.PollBio) m.command();
      Call c = called(p.call());
      send(md.dmPollBio(c.cpu(), c.what(), p.atPs(), p.bio()), out);
    }
  }

  private void onResume(Resume m, Outbox out) {
    Call c = called(m.call());
    send(md.dmResume(c.cpu(), c.what(), m.atPs()), out);
  }

  private void onEndClones(EndClones m, Outbox out) {
    Call c = called(m.call());
    send(md.cloneEndioInInterrupt(c.cpu(), c.what(), m.atPs(), m.clones()), out);
  }

  private void onBioSet(FromBioSet m, Outbox out) {
    DmNext w = waiting[m.cpu()];
    if (m.reply() instanceof BioSetActor.Allocated a) {
      send(md.dmSplitAndProcessBio((DmNext.AllocClones) w, a.atPs(), a.bios()), out);
    } else {
      send(md.clonesPut((DmNext.PutClones) w, m.atPs()), out);
    }
  }

  private void onLower(FromLower m, Outbox out) {
    DmNext w = waiting[m.cpu()];
    if (m.reply() instanceof BlockDevice.Submitted s) {
      send(md.clonesSubmitted((DmNext.SubmitClones) w, s.atPs(), s.ended(), s.wouldBlock()), out);
    } else if (m.reply() instanceof BlockDevice.Polled p) {
      send(md.clonePolled((DmNext.PollClone) w, p.atPs(), p.ended()), out);
    } else {
      throw new InvariantBroken(name() + ": an interrupt's ends came to the device, not the CPU");
    }
  }

  /** What the model returned, as a message: to io_bs, to a disk below, or back to the caller. */
  private void send(DmNext next, Outbox out) {
    int cpu = next.cpu();
    Call call = callers[cpu];
    if (next instanceof DmNext.Return r) {
      callers[cpu] = null;
      waiting[cpu] = null;
      out.send(call.replyTo(), reply(r));
      return;
    }
    waiting[cpu] = next;
    if (next instanceof DmNext.AllocClones a) {
      out.send(
          ioBs,
          new BioSetActor.AllocBios(
              a.atPs(),
              cpu,
              call.what(),
              a.count(),
              a.allocCache(),
              a.nrVecs(),
              a.cacheFn(),
              biosetReplies.get(cpu)));
    } else if (next instanceof DmNext.SubmitClones s) {
      DmNext.CloneGroup g = s.group();
      out.send(
          below.get(g.device()).submitTo(cpu, g.polled()),
          new BlockDevice.SubmitBio(s.atPs(), lowerCall(call), g.clones()));
    } else if (next instanceof DmNext.PollClone p) {
      out.send(
          below.get(p.device()).pollTo(p.cookie()),
          new BlockDevice.PollBio(p.atPs(), lowerCall(call), p.clone()));
    } else {
      DmNext.PutClones p = (DmNext.PutClones) next;
      out.send(
          ioBs,
          new BioSetActor.PutBios(p.atPs(), cpu, call.what(), p.clones(), biosetReplies.get(cpu)));
    }
  }

  /** The answer to the caller: what ended, and (a submission) what was turned away. */
  private static BlockDevice.Reply reply(DmNext.Return r) {
    return switch (r.kind()) {
      case SUBMIT -> new BlockDevice.Submitted(r.atPs(), r.queued(), r.ended(), r.failed());
      case POLL -> new BlockDevice.Polled(r.atPs(), r.ended());
      case IRQ -> new BlockDevice.IrqEnded(r.atPs(), r.ended());
    };
  }

  private Call called(Call call) {
    if (callers[call.cpu()] != null) {
      throw new InvariantBroken(name() + ": cpu" + call.cpu() + " called again mid-call");
    }
    callers[call.cpu()] = call;
    return call;
  }

  /** The call below: the same CPU's execution, answered here. */
  private Call lowerCall(Call call) {
    return call.replyingTo(lowerReplies.get(call.cpu()));
  }

  public MappedDevice md() {
    return md;
  }

  public CostLedger ledger() {
    return md.ledger();
  }
}

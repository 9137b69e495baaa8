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
import blksim.devices.drivers.md.DmIo;
import blksim.devices.drivers.md.MappedDevice;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The actor of a bio-based dm-linear device ({@link MappedDevice}): {@code dm_submit_bio} clones
 * each bio from the device's {@code io_bs} and submits the clone to the disk below; {@code
 * dm_poll_bio} polls a polled original's clone; {@code clone_endio} of the clones that end,
 * wherever they end, completes the originals. A polled clone that comes back {@code BLK_STS_AGAIN}
 * is requeued: the original, no longer polled, goes on the deferred list and {@code md->wq}'s
 * worker submits it again on the same CPU (a bound workqueue's work runs where it was queued; the
 * model gives each CPU's worker the bios that CPU deferred). The work is charged to the CPU whose
 * call it is; each call of a CPU is one {@link DmCall}, and a CPU has one out at a time.
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
  private final boolean cloneCache;
  private final Charger charger;
  private final List<SimRef<BlockDevice.Reply>> lowerReplies = new ArrayList<>();
  private final List<SimRef<BioSetActor.Reply>> biosetReplies = new ArrayList<>();
  private final DmCall[] calls;

  /**
   * @param ioBs the device's bio_set for dm_ios and their clones
   * @param below the disks of the table's targets, by device path
   * @param cloneCache whether a polled original's clone may come from io_bs's per-CPU cache (seed
   *     002 1/3; the cache itself is io_bs's)
   * @param nrCpus the machine's CPUs
   */
  public MappedDeviceActor(
      SimRef<Command> self,
      MappedDevice md,
      SimRef<BioSetActor.Command> ioBs,
      Map<String, Disk> below,
      boolean cloneCache,
      int nrCpus,
      PathCosts costs) {
    super(self.name(), Command.class);
    this.md = md;
    this.ioBs = ioBs;
    this.below = Map.copyOf(below);
    this.cloneCache = cloneCache;
    this.charger = new Charger(costs, name());
    this.calls = new DmCall[nrCpus];
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
      DmCall op = start(new DmCall(DmCall.Kind.SUBMIT, s.call(), s.bios()));
      long t = s.atPs() + charge(op, DmPaths.SUBMIT_PATH, s.bios().size());
      if (md.suspended()) {
        blockedForSuspend(op, t, out);
        return;
      }
      allocClones(op, t, s.bios(), out);
    } else {
      BlockDevice.PollBio p = (BlockDevice.PollBio) m.command();
      DmCall op = start(new DmCall(DmCall.Kind.POLL, p.call(), List.of(p.bio())));
      op.polling = md.pollIo(p.bio());
      if (op.polling == null) {
        // Requeued, no longer polled: bio_poll sees BLK_QC_T_NONE and returns 0. What this CPU
        // deferred while the device was suspended is md->wq's to submit now.
        nextGroup(op, p.atPs(), out);
        return;
      }
      long t = p.atPs() + charge(op, KernelFn.DM_POLL_BIO, 1);
      if (op.polling.ioCount() > 1 && op.polling.clone().cookie() != Bio.BLK_QC_T_NONE) {
        // dm_poll_dm_io: the clone is still out; bio_poll it where its cookie says (none yet: the
        // clone is not submitted below, and bio_poll returns 0).
        Bio clone = op.polling.clone();
        t += charge(op, KernelFn.BIO_POLL, 1);
        out.send(
            lowerDisk(op.polling).pollTo(clone.cookie()),
            new BlockDevice.PollBio(t, lowerCall(op), clone));
      } else {
        afterPoll(op, t, out);
      }
    }
  }

  /** dm_submit_bio while DMF_BLOCK_IO_FOR_SUSPEND is set: nothing reaches the table. */
  private void blockedForSuspend(DmCall op, long t, Outbox out) {
    for (Bio orig : op.origs) {
      if (md.blockedForSuspend(orig)) {
        t += charge(op, KernelFn.QUEUE_IO, 1);
      } else {
        op.failed.add(orig);
        t += charge(op, KernelFn.BIO_WOULDBLOCK_ERROR, 1);
      }
    }
    finish(op, t, out);
  }

  /** dm_queue_flush's work: the kworker of the resuming CPU submits the deferred bios. */
  private void onResume(Resume m, Outbox out) {
    DmCall op = start(new DmCall(DmCall.Kind.SUBMIT, m.call(), List.of()));
    List<Bio> origs = md.resume();
    if (origs.isEmpty()) {
      finish(op, m.atPs(), out);
      return;
    }
    long t =
        m.atPs()
            + charge(op, KernelFn.TRY_TO_WAKE_UP, 1)
            + charge(op, KernelFn.SCHEDULE, 1)
            + charge(op, KernelFn.DM_WQ_WORK, origs.size())
            + charge(op, DmPaths.SUBMIT_PATH, origs.size());
    allocClones(op, t, origs, out);
  }

  private void onEndClones(EndClones m, Outbox out) {
    DmCall op = start(new DmCall(DmCall.Kind.IRQ, m.call(), List.of()));
    long t = m.atPs() + endClones(op, m.clones());
    if (md.hasDeferred(op.call.cpu())) {
      throw new InvariantBroken(name() + ": a clone ended by interrupt was requeued");
    }
    putClones(op, t, out);
  }

  /**
   * bio_alloc_clone from io_bs for each original, polled ones from the per-CPU cache if allowed.
   */
  private void allocClones(DmCall op, long t, List<Bio> origs, Outbox out) {
    op.origs = origs;
    boolean polled = origs.get(0).polled();
    out.send(
        ioBs,
        new BioSetActor.AllocBios(
            t,
            op.call.cpu(),
            op.call.what(),
            origs.size(),
            cloneCache && polled,
            0,
            KernelFn.BIO_ALLOC_CLONE,
            biosetReplies.get(op.call.cpu())));
  }

  private void onBioSet(FromBioSet m, Outbox out) {
    DmCall op = calls[m.cpu()];
    if (m.reply() instanceof BioSetActor.Allocated a) {
      onClonesAllocated(op, a, out);
    } else {
      finish(op, m.atPs(), out);
    }
  }

  /** alloc_io, __map_bio → linear_map → DM_MAPIO_REMAPPED, then each clone's submit_bio_noacct. */
  private void onClonesAllocated(DmCall op, BioSetActor.Allocated a, Outbox out) {
    long t = a.atPs();
    op.newRound();
    for (int i = 0; i < a.bios().size(); i++) {
      DmIo io = md.allocIoAndMap(op.origs.get(i), a.bios().get(i));
      md.submitted(io);
      op.group(lowerDisk(io).submitTo(op.call.cpu(), io.clone().polled()), io.clone());
    }
    t += charge(op, DmPaths.MAP_PATH, a.bios().size());
    nextGroup(op, t, out);
  }

  private void nextGroup(DmCall op, long t, Outbox out) {
    DmCall.Group g = op.groups.peekFirst();
    if (g != null) {
      out.send(g.to(), new BlockDevice.SubmitBio(t, lowerCall(op), g.clones()));
      return;
    }
    if (md.hasDeferred(op.call.cpu()) && !md.suspended()) {
      // dm_wq_work stops while DMF_BLOCK_IO_FOR_SUSPEND is set: the bios wait for the resume.
      resubmit(op, t, out);
      return;
    }
    if (op.resubmitting) {
      // The worker is done; the submitter is switched back in.
      op.resubmitting = false;
      t += charge(op, KernelFn.SCHEDULE, 1);
    }
    putClones(op, t, out);
  }

  /**
   * md->wq's work, queued by queue_io: the kworker of this CPU's bound pool is woken and, as the
   * woken task preempts the submitter, runs dm_wq_work at once: each deferred original is submitted
   * again, not polled.
   */
  private void resubmit(DmCall op, long t, Outbox out) {
    List<Bio> origs = md.takeDeferred(op.call.cpu());
    if (!op.resubmitting) {
      op.resubmitting = true;
      t += charge(op, KernelFn.TRY_TO_WAKE_UP, 1) + charge(op, KernelFn.SCHEDULE, 1);
    }
    t +=
        charge(op, KernelFn.DM_WQ_WORK, origs.size())
            + charge(op, DmPaths.SUBMIT_PATH, origs.size());
    allocClones(op, t, origs, out);
  }

  private void onLower(FromLower m, Outbox out) {
    DmCall op = calls[m.cpu()];
    if (m.reply() instanceof BlockDevice.Submitted s) {
      op.groups.pollFirst();
      long t = s.atPs() + endClones(op, s.ended()) + endClones(op, s.wouldBlock());
      nextGroup(op, t, out);
    } else if (m.reply() instanceof BlockDevice.Polled p) {
      afterPoll(op, p.atPs() + endClones(op, p.ended()), out);
    } else {
      throw new InvariantBroken(name() + ": an interrupt's ends came to the device, not the CPU");
    }
  }

  /**
   * dm_poll_bio's end: the polled io completes if only the polling side's reference is left; if it
   * failed with BLK_STS_AGAIN it is requeued, and md->wq's worker submits it again from here.
   */
  private void afterPoll(DmCall op, long t, Outbox out) {
    if (md.pollDone(op.polling)) {
      t += complete(op, op.polling);
    }
    nextGroup(op, t, out);
  }

  /**
   * clone_endio of each bio that ended below; bios that are not this device's clones (the raw bios
   * a poll of a shared hardware queue found) are handed back as they are.
   *
   * @return the time it took
   */
  private long endClones(DmCall op, List<Bio> bios) {
    long ps = 0;
    for (Bio bio : bios) {
      if (!(bio.owner() instanceof DmIo io) || io.md() != md) {
        op.ended.add(bio);
        continue;
      }
      ps += charge(op, KernelFn.CLONE_ENDIO, 1);
      if (md.cloneEndio(bio)) {
        ps += complete(op, io);
      }
    }
    return ps;
  }

  /** dm_io_complete: the clone is freed with the io; the original ends, or is requeued. */
  private long complete(DmCall op, DmIo io) {
    long ps = charge(op, DmPaths.COMPLETE_PATH, 1);
    op.toPut.add(io.clone());
    if (md.complete(io, op.call.cpu()) == MappedDevice.Completion.REQUEUED) {
      return ps + charge(op, KernelFn.QUEUE_IO, 1);
    }
    if (io.orig().status() == -MappedDevice.EAGAIN) {
      op.failed.add(io.orig());
    } else {
      op.ended.add(io.orig());
    }
    return ps;
  }

  /** free_io of the completed dm_ios: bio_put of their clones to io_bs. */
  private void putClones(DmCall op, long t, Outbox out) {
    if (op.toPut.isEmpty()) {
      finish(op, t, out);
      return;
    }
    List<Bio> put = List.copyOf(op.toPut);
    op.toPut.clear();
    out.send(
        ioBs,
        new BioSetActor.PutBios(
            t, op.call.cpu(), op.call.what(), put, biosetReplies.get(op.call.cpu())));
  }

  /** The call returns to the CPU that made it. */
  private void finish(DmCall op, long t, Outbox out) {
    calls[op.call.cpu()] = null;
    if (op.kind != DmCall.Kind.SUBMIT && !op.failed.isEmpty()) {
      throw new InvariantBroken(
          name() + ": a resubmitted bio ended -EAGAIN outside a submission (not modelled)");
    }
    out.send(op.call.replyTo(), op.reply(t));
  }

  private DmCall start(DmCall op) {
    if (calls[op.call.cpu()] != null) {
      throw new InvariantBroken(name() + ": cpu" + op.call.cpu() + " called again mid-call");
    }
    calls[op.call.cpu()] = op;
    return op;
  }

  /** The call below: the same CPU's execution, answered here. */
  private Call lowerCall(DmCall op) {
    return op.call.replyingTo(lowerReplies.get(op.call.cpu()));
  }

  private Disk lowerDisk(DmIo io) {
    return below.get(md.target(io).device());
  }

  private long charge(DmCall op, KernelFn fn, int calls) {
    return charger.charge(op.call.cpu(), op.call.what(), fn, calls);
  }

  private long charge(DmCall op, KernelFn[] fns, int calls) {
    return charger.charge(op.call.cpu(), op.call.what(), fns, calls);
  }

  public MappedDevice md() {
    return md;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }
}

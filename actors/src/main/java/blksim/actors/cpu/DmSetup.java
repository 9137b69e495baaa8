package blksim.actors.cpu;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.drivers.md.MappedDeviceActor;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.devices.drivers.md.DmSetupCommands;
import blksim.queues.block.fops.BioEndio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;

/**
 * A {@code dmsetup} process, a task of the CPU it runs on ({@link Task}): {@code dmsetup suspend
 * --noflush} of a DM device at a virtual time, then, after a sleep, {@code dmsetup resume} (a
 * script's {@code dmsetup suspend; sleep; dmsetup resume}). Each command's time wakes it; it runs
 * when its CPU's run queue picks it, beside a submitter thread or an io-wq worker if the machine
 * has no CPU left for it, so that a suspend on a busy CPU comes late and its resume as late. The
 * resume's md->wq work runs on this CPU: it submits what the suspend deferred, and a bio that ends
 * there (one requeued and submitted again, not polled) completes its io_uring request on the ring's
 * own CPU.
 */
public final class DmSetup extends Task {
  private final String name;
  private final String deviceName;
  private final ThisCpu cpu;
  private final SimRef<MappedDeviceActor.Command> device;
  private final SimRef<BlockDevice.Reply> deviceReplies;
  private final SimRef<BioSetActor.Reply> biosetReplies;
  private final Charger charger;

  /** Its commands and their order ({@link DmSetupCommands}). */
  private final DmSetupCommands commands = new DmSetupCommands();

  /**
   * @param name the process's name, as its books and its ledger give it ({@code cpuN-dmsetup-dm-M})
   * @param slot its place on its CPU
   * @param deviceName that device's name ({@code dm-M})
   * @param device the DM device it suspends and resumes
   */
  DmSetup(
      String name,
      int slot,
      ThisCpu cpu,
      String deviceName,
      SimRef<MappedDeviceActor.Command> device) {
    super(slot);
    this.name = name;
    this.deviceName = deviceName;
    this.cpu = cpu;
    this.device = device;
    this.deviceReplies = cpu.self.adapt(r -> new Cpu.FromBlock(slot, r));
    this.biosetReplies = cpu.self.adapt(r -> new Cpu.FromBioSet(slot, r));
    this.charger = new Charger(cpu.costs, name);
  }

  /**
   * The time of a command came ({@link DmSetupCommands#command}).
   *
   * @return whether this woke the process: its CPU runs it when the run queue picks it
   */
  boolean command(long forPs) {
    return commands.command(forPs);
  }

  /** Switched in after a wake-up at {@code t}: it runs its commands. */
  @Override
  public void resume(long t, Outbox out) {
    commands.switchedIn();
    next(t, out);
  }

  /** Runs the next command that came, or sleeps at {@code t} when none is left. */
  private void next(long t, Outbox out) {
    DmSetupCommands.Step step = commands.next(t);
    if (step instanceof DmSetupCommands.Suspend suspend) {
      out.send(device, new MappedDeviceActor.Suspend(t));
      // nanosleep, then resume
      out.send(cpu.self, new Cpu.DmSetupAt(t + suspend.sleepPs(), slot, -1));
    } else if (step instanceof DmSetupCommands.Resume) {
      out.send(
          device,
          new MappedDeviceActor.Resume(
              t, new BlockDevice.Call(cpu.index, slot, CpuTime.SUBMIT, deviceReplies, null, null)));
    }
  }

  /** The answer to the resume's call, at a step boundary of its CPU. */
  @Override
  public void handle(SimMessage m, Outbox out) {
    if (m instanceof BlockDevice.Submitted s) {
      submitted(s, out);
    } else if (m instanceof BioSetActor.Put p) {
      commands.resumed();
      next(p.atPs(), out);
    } else {
      throw new InvariantBroken(name + ": not a reply to dmsetup: " + m);
    }
  }

  /** What the resubmission ended at once completes on each request's own ring; bio_put here. */
  private void submitted(BlockDevice.Submitted s, Outbox out) {
    if (!s.wouldBlock().isEmpty()) {
      throw new InvariantBroken(name + ": the resume's submission answered " + s);
    }
    if (s.ended().isEmpty()) {
      commands.resumed();
      next(s.atPs(), out);
      return;
    }
    long t =
        cpu.send(
            BioEndio.inSubmitWithoutRing(
                charger, cpu.index, cpu.remoteCompletion, s.atPs(), s.ended()),
            out);
    out.send(
        cpu.bioset,
        new BioSetActor.PutBios(t, cpu.index, CpuTime.SUBMIT, s.ended(), biosetReplies));
  }

  /** It runs each command through to its sleep: the CPU schedules nowhere in between. */
  @Override
  public boolean schedulesAt(SimMessage m) {
    return false;
  }

  @Override
  public boolean preemptibleAt(SimMessage m) {
    return false;
  }

  /** Its resume's call is out: the CPU is busy with it. */
  @Override
  public boolean inFlight() {
    return commands.inFlight();
  }

  /** Woken by a command and not yet switched in. */
  @Override
  public boolean woken() {
    return commands.woken();
  }

  /** From when its CPU is free of it: asleep since its last command. */
  @Override
  public long freeAtPs() {
    return commands.freeAtPs();
  }

  /** The CPU it runs on. */
  @Override
  public int cpu() {
    return cpu.index;
  }

  @Override
  public String comm() {
    return "dmsetup";
  }

  /** The DM device it suspends and resumes ({@code dm-M}). */
  public String device() {
    return deviceName;
  }

  /** The process's name, as its books give it. */
  public String name() {
    return name;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }

  /** Every suspend was followed by its resume, and the resume's work finished. */
  public void audit(Books books) {
    commands.audit(books, name);
  }
}

package blksim.actors.cpu;

import blksim.actors.bioset.BioSetCache;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Charger;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.actors.hctx.HwQueue;
import blksim.actors.tiouring.MainThread;
import blksim.queues.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.uring.IoKiocb;
import blksim.queues.uring.IoRingCtx;
import blksim.queues.uring.Submitter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One CPU running one t/io_uring submitter thread: user space ({@link Submitter}), the kernel side
 * of its ring ({@link IoRingCtx}, fs/io_uring.c) and the raw block device file (block/fops.c).
 *
 * <p>The CPU is a non-preemptive server: its execution travels with the messages it sends. A call
 * into the bioset, a hardware queue or the device is a message carrying the time at which the CPU
 * makes it; the callee charges its own work to this CPU and replies when it returns. One
 * io_uring_enter is therefore a chain: submit SQEs, allocate bios ({@link BioSetCache}), submit
 * them ({@link HwQueue}), then, for IORING_ENTER_GETEVENTS on an IOPOLL ring, {@code
 * io_iopoll_check}: poll the hardware queue, end the bios it found, put them, post CQEs, and poll
 * again until {@code min_complete} events were found. The syscall returns with a {@link Resume} to
 * itself, where user space reaps and t/io_uring's loop decides what comes next.
 */
public final class Cpu extends AbstractComponent<Cpu.Command> {

  /** Everything a CPU understands. */
  public sealed interface Command extends SimMessage
      permits Start, BiosAllocated, BiosQueued, Polled, BiosPut, ReadCounters, Finish, Resume {}

  /** Starts the submitter thread. */
  public record Start(long atPs) implements Command {}

  /** The bioset returned the bios asked for, one per request being submitted. */
  public record BiosAllocated(long atPs, List<Bio> bios) implements Command {}

  /**
   * The hardware queue took the bios and the driver queued their requests; {@code ended} are the
   * bios of requests the driver completed at once (interrupt-driven queues with irqmode 0 or 1).
   */
  public record BiosQueued(long atPs, int count, List<Bio> ended) implements Command {}

  /** A poll of a hardware queue returned; {@code ended} are the bios of the requests it ended. */
  public record Polled(long atPs, List<Bio> ended) implements Command {}

  /** The bioset took back the bios put. */
  public record BiosPut(long atPs) implements Command {}

  /** t/io_uring's main thread reads the submitter's counters. */
  public record ReadCounters(long atPs, SimRef<MainThread.Command> replyTo) implements Command {}

  /** t/io_uring's main thread sets {@code s->finish}. */
  public record Finish(long atPs) implements Command {}

  /** io_uring_enter returns to user space. */
  private record Resume(long atPs) implements Command {}

  /** Consecutive polls that find nothing before the model is declared stuck. */
  static final int MAX_EMPTY_POLLS = 1_000_000;

  private final int index;
  private final SimRef<Command> self;
  private final SimRef<BioSetCache.Command> bioset;
  private final SimRef<MainThread.Command> main;
  private final List<SimRef<HwQueue.Command>> hctxs;
  private final Submitter sub;
  private final IoRingCtx ring;
  private final CpuConfig cfg;
  private final PathCosts costs;
  private final Charger charger;
  private final Histogram latencyNs = new Histogram(3);
  private final List<IoKiocb> submitting = new ArrayList<>();
  private final ArrayDeque<Group> groups = new ArrayDeque<>();
  private boolean submitPhase;
  private Submitter.EnterArgs args;
  private int ret;
  private int nrEvents;
  private int emptyPolls;
  private boolean exiting;
  private boolean exited;
  private long exitedAtPs;

  /**
   * @param index the CPU number, also the submitter's index
   * @param index the CPU's number
   * @param hctxs every hardware queue of every device, device after device
   */
  public Cpu(
      int index,
      SimRef<Command> self,
      SimRef<BioSetCache.Command> bioset,
      SimRef<MainThread.Command> main,
      List<SimRef<HwQueue.Command>> hctxs,
      Submitter sub,
      IoRingCtx ring,
      CpuConfig cfg,
      PathCosts costs) {
    super(self.name());
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

  /** The head of a pass of t/io_uring's loop: prepare SQEs, then enter. */
  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(Start.class, (m, out) -> pass(m.atPs(), out))
        .on(BiosAllocated.class, this::onBiosAllocated)
        .on(BiosQueued.class, this::onBiosQueued)
        .on(Polled.class, this::onPolled)
        .on(BiosPut.class, this::onBiosPut)
        .on(Resume.class, this::onResume)
        .on(ReadCounters.class, this::onReadCounters)
        .on(Finish.class, (m, out) -> sub.finish())
        .build();
  }

  private void pass(long t, Outbox out) {
    int toPrep = sub.toPrep();
    int prepped =
        toPrep > 0 ? sub.prepMoreIos(toPrep, t, costs.step(KernelFn.PREP_MORE_IOS_URING).ps()) : 0;
    t += charge(CpuTime.SUBMIT, KernelFn.PREP_MORE_IOS_URING, prepped);
    sub.beginPass(prepped);
    enter(t, out);
  }

  /** io_uring_enter: the syscall, then io_submit_sqes up to the bio allocation. */
  private void enter(long t, Outbox out) {
    args = sub.enterArgs();
    t += charge(CpuTime.SUBMIT, CpuPaths.ENTER_PATH, 1);
    ret = 0;
    nrEvents = 0;
    for (int i = 0; i < args.toSubmit(); i++) {
      IoKiocb req = ring.submitSqe();
      if (req == null) {
        break;
      }
      submitting.add(req);
    }
    int n = submitting.size();
    if (n > 0 && cfg.iopoll() && !cfg.oDirect()) {
      // io_rw_init_file: an IOPOLL ring needs IOCB_DIRECT; each read fails at issue.
      t += charge(CpuTime.SUBMIT, CpuPaths.FAILED_SUBMIT_PATH, n);
      for (IoKiocb req : submitting) {
        ring.failRequest(req, -Submitter.EOPNOTSUPP);
      }
      ret = n;
      submitting.clear();
      n = 0;
    }
    if (n == 0) {
      afterSubmit(t, out);
      return;
    }
    t += charge(CpuTime.SUBMIT, CpuPaths.SUBMIT_PATH, n);
    out.send(
        bioset,
        new BioSetCache.AllocBios(t, index, CpuTime.SUBMIT, n, cfg.iopoll(), cfg.nrVecs(), self));
  }

  /**
   * __blkdev_direct_IO_async with its bio: set each up, then submit them, one hardware queue after
   * another when the batch spans several devices (each in the order it first appears).
   */
  private void onBiosAllocated(BiosAllocated m, Outbox out) {
    List<Bio> bios = m.bios();
    Map<Integer, Group> byHctx = new LinkedHashMap<>();
    for (int i = 0; i < bios.size(); i++) {
      Bio bio = bios.get(i);
      IoKiocb req = submitting.get(i);
      bio.setRange(req.sqe().off() >> 9, req.sqe().len());
      bio.setBioPrivate(req);
      if (cfg.iopoll()) {
        bio.setPolled();
      }
      req.setKiocbPrivate(bio);
      int hctx = cfg.hctxOf((int) (req.sqe().userData() & 0xffffffffL));
      req.setCookie(hctx);
      Group g =
          byHctx.computeIfAbsent(hctx, h -> new Group(h, new ArrayList<>(), new ArrayList<>()));
      g.reqs().add(req);
      g.bios().add(bio);
    }
    groups.addAll(byHctx.values());
    ret = submitting.size();
    submitting.clear();
    submitPhase = true;
    nextGroup(m.atPs() + charge(CpuTime.SUBMIT, CpuPaths.PAGES_PATH, bios.size()), out);
  }

  /** The requests of one batch that go to one hardware queue. */
  private record Group(int hctx, List<IoKiocb> reqs, List<Bio> bios) {}

  /** Submits the next group of the batch, or goes on after io_submit_sqes. */
  private void nextGroup(long t, Outbox out) {
    Group g = groups.peekFirst();
    if (g == null) {
      submitPhase = false;
      afterSubmit(t, out);
      return;
    }
    out.send(
        hctxs.get(g.hctx()),
        new HwQueue.SubmitBios(t, new HwQueue.Call(index, CpuTime.SUBMIT, self), g.bios()));
  }

  private void onBiosQueued(BiosQueued m, Outbox out) {
    Group g = groups.pollFirst();
    if (cfg.iopoll()) {
      for (IoKiocb req : g.reqs()) {
        ring.iopollReqIssued(req);
      }
    }
    if (m.ended().isEmpty()) {
      nextGroup(m.atPs(), out);
      return;
    }
    // Completed inline: io_complete_rw queues each completion as task_work, then bio_put.
    for (Bio bio : m.ended()) {
      ring.completeRw(
          (IoKiocb) bio.bioPrivate(), bio.status() == 0 ? bio.sizeBytes() : bio.status());
    }
    long t = m.atPs() + charge(CpuTime.SUBMIT, CpuPaths.IRQ_END_PATH, m.ended().size());
    out.send(bioset, new BioSetCache.PutBios(t, index, CpuTime.SUBMIT, m.ended(), self));
  }

  /**
   * After io_submit_sqes. IOPOLL: io_iopoll_check if the caller asked for events. Otherwise the
   * task_work queued by completions runs (in io_cqring_wait, or on the way back to user space),
   * posting their CQEs; a wait for more than that would sleep for completions that the model does
   * not produce yet (timers, interrupts from other CPUs).
   */
  private void afterSubmit(long t, Outbox out) {
    if (cfg.iopoll()) {
      if (args.getEvents() && ring.cqEvents() == 0 && !ring.iopollListEmpty()) {
        poll(t, out);
      } else {
        leave(t, out);
      }
      return;
    }
    int pending = ring.taskWorkPending();
    if (pending > 0) {
      t += charger.charge(index, CpuTime.SUBMIT, costs.tctxTaskWorkPerRun(), 1);
      t += charge(CpuTime.SUBMIT, CpuPaths.TASK_WORK_PATH, ring.runTaskWork());
    }
    if (args.getEvents() && ring.cqEvents() < args.toWait()) {
      throw new InvariantBroken(
          name()
              + ": io_uring_enter waits for "
              + args.toWait()
              + " completions with "
              + ring.cqEvents()
              + " posted and none to come");
    }
    leave(t, out);
  }

  /** io_do_iopoll: poll the hardware queue of the request at the head of the IOPOLL list. */
  private void poll(long t, Outbox out) {
    IoKiocb head = ring.iopollHead();
    out.send(
        hctxs.get(head.cookie()), new HwQueue.Poll(t, new HwQueue.Call(index, CpuTime.POLL, self)));
  }

  /** bio_endio of each bio found: blkdev_bio_end_io_async, ki_complete, then bio_put. */
  private void onPolled(Polled m, Outbox out) {
    List<Bio> ended = m.ended();
    if (ended.isEmpty()) {
      if (++emptyPolls >= MAX_EMPTY_POLLS) {
        throw new InvariantBroken(name() + ": " + emptyPolls + " polls in a row found nothing");
      }
      afterPut(m.atPs() + charge(CpuTime.POLL, CpuPaths.EMPTY_POLL_PATH, 1), out);
      return;
    }
    emptyPolls = 0;
    for (Bio bio : ended) {
      ring.completeRwIopoll(
          (IoKiocb) bio.bioPrivate(), bio.status() == 0 ? bio.sizeBytes() : bio.status());
    }
    long t =
        m.atPs()
            + charge(CpuTime.POLL, CpuPaths.POLL_PATH, 1)
            + charge(CpuTime.POLL, CpuPaths.END_IO_PATH, ended.size());
    out.send(bioset, new BioSetCache.PutBios(t, index, CpuTime.POLL, ended, self));
  }

  private void onBiosPut(BiosPut m, Outbox out) {
    if (submitPhase) {
      nextGroup(m.atPs(), out);
    } else {
      afterPut(m.atPs(), out);
    }
  }

  /** The end of io_do_iopoll: post CQEs for the completed prefix; poll again or return. */
  private void afterPut(long t, Outbox out) {
    if (exiting) {
      ring.dropCompletedAtExit();
      if (ring.iopollListEmpty()) {
        exited = true;
      } else {
        poll(t, out);
      }
      return;
    }
    int nr = ring.iopollFlushCompleted();
    t += charge(CpuTime.POLL, KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS, nr);
    nrEvents += nr;
    if (nrEvents < args.toWait() && !ring.iopollListEmpty()) {
      poll(t, out);
    } else {
      leave(t, out);
    }
  }

  private void leave(long t, Outbox out) {
    out.send(self, new Resume(t));
  }

  /** Back in user space: reap, then t/io_uring's rules. */
  private void onResume(Resume m, Outbox out) {
    long t = m.atPs();
    int thisReap =
        sub.reap(
            t, costs.step(KernelFn.REAP_EVENTS_URING).ps(), ps -> latencyNs.recordValue(ps / 1000));
    t += charge(CpuTime.SUBMIT, KernelFn.REAP_EVENTS_URING, Math.max(thisReap, 0));
    switch (sub.entered(ret, thisReap)) {
      case ENTER -> enter(t, out);
      case PASS -> pass(t, out);
      case EXIT -> exitThread(t, out);
    }
  }

  /** The thread ends; requests still in flight are reaped by the ring's teardown. */
  private void exitThread(long t, Outbox out) {
    exiting = true;
    exitedAtPs = t;
    if (!sub.fatal().isEmpty()) {
      out.send(main, new MainThread.ThreadExited(t, cfg.submitter(), sub.fatal()));
    }
    if (ring.iopollListEmpty()) {
      exited = true;
    } else {
      poll(t, out);
    }
  }

  private long charge(CpuTime what, KernelFn fn, int calls) {
    return charger.charge(index, what, fn, calls);
  }

  private long charge(CpuTime what, KernelFn[] fns, int calls) {
    return charger.charge(index, what, fns, calls);
  }

  private void onReadCounters(ReadCounters m, Outbox out) {
    out.send(
        m.replyTo(),
        new MainThread.Counters(m.atPs(), cfg.submitter(), sub.done(), sub.calls(), sub.reaps()));
  }

  public int index() {
    return index;
  }

  /** When the submitter thread ended, in virtual time. */
  public long exitedAtPs() {
    return exitedAtPs;
  }

  /** The t/io_uring thread this CPU runs. */
  public int submitterIndex() {
    return cfg.submitter();
  }

  public Submitter submitter() {
    return sub;
  }

  public IoRingCtx ring() {
    return ring;
  }

  /** Submit-to-reap latency of every I/O reaped, in ns. */
  public Histogram latencyNs() {
    return latencyNs;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }

  /** Checks the submitter and its ring: every I/O submitted completed exactly once. */
  public void audit(Books books) {
    books.check(exited, name() + ": the submitter thread never ended");
    ring.audit(books, name());
    books.checkEqual(
        ring.submitted(), sub.done(), name() + ": SQEs the kernel accepted vs t/io_uring's done");
    books.checkEqual(
        ring.completed() - ring.droppedAtExit(),
        sub.reaps() + ring.cqEvents(),
        name() + ": CQEs posted vs reaped");
  }
}

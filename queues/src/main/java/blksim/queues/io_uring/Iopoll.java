package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterLoop.Phase;
import java.util.List;

/**
 * Reaping on an IOPOLL ring (fs/io_uring.c 5.16-5.18, docs/kernel.md section 6): {@code
 * io_iopoll_check}'s loop, in which {@code io_do_iopoll} polls the request at the head of the
 * ring's IOPOLL list, {@code io_complete_rw_iopoll} completes the requests of the bios the poll
 * ended, and {@code io_iopoll_complete} posts CQEs for the completed requests at the head of the
 * list; it polls again while fewer than {@code min_complete} events were found. After the task
 * ended, the ring's teardown ({@code io_iopoll_try_reap_events}) polls until the list is empty.
 */
public final class Iopoll {
  /** One io_do_iopoll pass that found something, with its bdev lookup. */
  public static final KernelFn[] POLL_PATH = {KernelFn.IO_DO_IOPOLL, KernelFn.BLKDEV_IOPOLL};

  /** One io_do_iopoll pass that found nothing. */
  public static final KernelFn[] EMPTY_POLL_PATH = {
    KernelFn.IO_DO_IOPOLL_EMPTY, KernelFn.BLKDEV_IOPOLL
  };

  /** An IOPOLL ring's completions, per request: post its CQE, put its rsrc node reference. */
  public static final KernelFn[] IOPOLL_COMPLETE_PATH = {
    KernelFn.IO_IOPOLL_COMPLETE,
    KernelFn.RCU_READ_LOCK_RSRC,
    KernelFn.RCU_READ_UNLOCK_RSRC,
    KernelFn.FPUT
  };

  private final Charger charger;
  private final int cpu;
  private final IoRingCtx ring;
  private final EnterLoop loop;
  private final RingTask task;

  /** The ring's io_kiocb line coming back after another CPU's poll completed it. */
  private final CostStep kiocbBack;

  /** Completing another CPU's ring's request here: its lines come over. */
  private final CostStep remote;

  /** Other CPUs' rings' requests a poll completed, until their CPUs are told. */
  private final ForeignCompletions elsewhere = new ForeignCompletions();

  /**
   * @param charger the charger of the task's CPU, {@code cpu}
   */
  public Iopoll(Charger charger, int cpu, IoRingCtx ring, EnterLoop loop, RingTask task) {
    this.charger = charger;
    this.cpu = cpu;
    this.ring = ring;
    this.loop = loop;
    this.task = task;
    this.kiocbBack = new CostStep(Contention.LINE_OWN_KIOCB, charger.costs().lineTransferPs());
    this.remote = charger.costs().remoteCompletion();
  }

  /**
   * {@code io_iopoll_check}, entered at {@code t}: its {@code mutex_lock} is a {@code might_sleep}
   * where a woken ksoftirqd (TIF_NEED_RESCHED) runs first; in the ring's teardown ({@code
   * io_iopoll_try_reap_events}' {@code cond_resched}) so does another task of the CPU whose turn it
   * is. Otherwise the task takes the {@code uring_lock} again and polls.
   */
  public EnterCall ioIopollCheck(long t) {
    if (task.ksoftirqdPending() || loop.exiting() && task.needResched(t)) {
      loop.to(Phase.RESCHED);
      return new EnterCall.Resched(t);
    }
    return loop.exiting() ? ioDoIopoll(t) : new EnterCall.UringLock(t);
  }

  /** The task runs again at {@code t} after its {@link EnterCall.Resched}: it goes on to poll. */
  public EnterCall rescheduled(long t) {
    loop.answered(Phase.RESCHED);
    return loop.exiting() ? ioDoIopoll(t) : new EnterCall.UringLock(t);
  }

  /**
   * {@code io_do_iopoll} at {@code t}: poll the bio of the request at the head of the IOPOLL list.
   * A head another CPU's poll completed already stops it at once: it polls nothing and flushes.
   */
  public EnterCall ioDoIopoll(long t) {
    IoKiocb head = ring.iopollHead();
    if (head.state() == IoKiocb.State.COMPLETED) {
      return ioIopollComplete(t + charger.charge(cpu, CpuTime.POLL, KernelFn.IO_DO_IOPOLL, 1));
    }
    loop.teardownPolls();
    loop.to(Phase.POLL);
    return new EnterCall.PollBio(t, head, head.kiocbPrivate());
  }

  /**
   * The poll returned at {@code t} with the bios it ended: {@code bio_endio} of each ({@code
   * blkdev_bio_end_io_async}), whose {@code io_complete_rw_iopoll} completes its request, in this
   * ring, in another of this CPU's, or in another CPU's; each other CPU's ring then hears of its
   * own (their lines charged, {@link ForeignCompletions#tell}), before the {@code bio_put} of all.
   * A poll that found nothing goes on to the flush.
   */
  public EnterCall bioPolled(List<Bio> ended, long t) {
    loop.answered(Phase.POLL);
    if (ended.isEmpty()) {
      loop.foundNothing();
      return ioIopollComplete(t + charger.charge(cpu, CpuTime.POLL, EMPTY_POLL_PATH, 1));
    }
    loop.foundSome();
    ioCompleteRwIopoll(ended, elsewhere);
    t +=
        charger.charge(cpu, CpuTime.POLL, POLL_PATH, 1)
            + charger.charge(cpu, CpuTime.POLL, IoRw.END_IO_PATH, ended.size());
    loop.to(Phase.PUT_POLLED);
    if (elsewhere.isEmpty()) {
      return new EnterCall.PutBios(t, ended, List.of());
    }
    ForeignCompletions.Told told = elsewhere.tell(charger, cpu, CpuTime.POLL, remote, t);
    return new EnterCall.PutBios(told.atPs(), ended, told.rings());
  }

  /**
   * {@code io_complete_rw_iopoll} of each bio's request: this ring's, or another ring's of this
   * CPU, completes here; another CPU's goes to {@code elsewhere}, in order.
   */
  void ioCompleteRwIopoll(List<Bio> ended, ForeignCompletions elsewhere) {
    for (int i = 0; i < ended.size(); i++) {
      Bio bio = ended.get(i);
      IoKiocb req = (IoKiocb) bio.owner();
      IoRingCtx owner = req.owner() == ring.owner() ? ring : task.ringOf(req.owner());
      if (owner != null) {
        owner.completeRwIopoll(req, IoRw.res(bio));
      } else {
        elsewhere.add(req, IoRw.res(bio));
      }
    }
  }

  /** The bios the poll ended are back in their bio set at {@code t}: the end of io_do_iopoll. */
  public EnterCall biosPut(long t) {
    loop.answered(Phase.PUT_POLLED);
    return ioIopollComplete(t);
  }

  /**
   * The end of {@code io_do_iopoll} at {@code t}: {@code io_iopoll_complete} posts CQEs for the
   * completed requests at the head of the IOPOLL list (a completed request behind one still in
   * flight waits); then {@code io_iopoll_check} polls again while fewer than {@code min_complete}
   * events were found and more are in flight, unless ksoftirqd or another task is to run ({@code
   * need_resched}); else the syscall returns. In the ring's teardown the completed are dropped
   * instead, and it polls until the list is empty.
   */
  EnterCall ioIopollComplete(long t) {
    if (loop.exiting()) {
      ring.dropCompletedAtExit();
      if (ring.iopollListEmpty()) {
        loop.teardownIdle();
        return new EnterCall.TeardownIdle(t);
      }
      return ioIopollCheck(t); // io_iopoll_try_reap_events's cond_resched lets local work run
    }
    IoRingCtx.Flushed flushed = ring.iopollFlushCompleted();
    int nr = flushed.posted();
    t += charger.charge(cpu, CpuTime.POLL, IOPOLL_COMPLETE_PATH, nr);
    t += charger.charge(cpu, CpuTime.POLL, kiocbBack, flushed.elsewhere());
    if (loop.pollAgain(nr, ring) && !task.ksoftirqdPending() && !task.needResched(t)) {
      return ioDoIopoll(t);
    }
    // enough events, or need_resched: ksoftirqd or another task runs as it returns
    loop.to(Phase.RETURN);
    return new EnterCall.Return(t);
  }

  /**
   * The ring's teardown ({@code io_ring_exit_work}'s {@code io_iopoll_try_reap_events}) at {@code
   * t}, the task ended: it polls what the IOPOLL list still holds, or is idle.
   */
  public EnterCall ioIopollTryReapEvents(long t) {
    if (ring.iopollListEmpty()) {
      loop.teardownIdle();
      return new EnterCall.TeardownIdle(t);
    }
    return ioDoIopoll(t);
  }
}

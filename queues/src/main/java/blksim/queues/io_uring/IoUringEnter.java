package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.io_uring.EnterLoop.Phase;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One task's {@code io_uring_enter(2)} on its CPU (fs/io_uring.c 5.16-5.18, docs/kernel.md sections
 * 1.5 and 6): the syscall's own work, {@code io_submit_sqes} of up to {@code to_submit} SQEs
 * ({@code io_issue_sqe}, {@code io_read}, {@code blkdev_read_iter}, {@code
 * __blkdev_direct_IO_async}), then, for IORING_ENTER_GETEVENTS, {@link Iopoll io_iopoll_check} on
 * an IOPOLL ring or {@code io_cqring_wait} on another, and the return to user space with the
 * task_work it runs. Each method charges what the kernel runs there to the task's CPU and returns
 * where the path leaves io_uring ({@link EnterCall}).
 */
public final class IoUringEnter {
  /** io_uring_enter itself, per call: the syscall, the ring fd, io_uring's own work. */
  public static final KernelFn[] ENTER_PATH = {
    KernelFn.SYSCALL, KernelFn.FDGET_FDPUT, KernelFn.IO_URING_ENTER
  };

  /**
   * io_submit_sqes to the bio allocation, per SQE, with the RCU section of the rsrc node's
   * reference that a request with a registered file or buffer takes up to 5.15, and {@code
   * __fget_files}, which a fixed file ({@code IOSQE_FIXED_FILE}) does not run: its price is 0 there
   * ({@code PathCosts}, docs/costs.md).
   */
  public static final KernelFn[] SUBMIT_PATH = {
    KernelFn.IO_SUBMIT_SQES,
    KernelFn.RCU_READ_LOCK_RSRC,
    KernelFn.RCU_READ_UNLOCK_RSRC,
    KernelFn.FGET,
    KernelFn.IO_PREP_RW,
    KernelFn.IO_ISSUE_SQE,
    KernelFn.IO_READ,
    KernelFn.IO_IMPORT_IOVEC,
    KernelFn.BLKDEV_READ_ITER,
    KernelFn.BLKDEV_DIRECT_IO
  };

  /**
   * An IORING_OP_NOP ({@code -N1}), per SQE: io_submit_sqes, its issue, and the flush that posts
   * its CQE at the end of the submission (docs/kernel.md section 9).
   */
  public static final KernelFn[] NOP_PATH = {
    KernelFn.IO_SUBMIT_SQES, KernelFn.IO_NOP, KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS
  };

  /** io_submit_sqes and io_read up to io_rw_init_file's refusal, per SQE. */
  public static final KernelFn[] FAILED_SUBMIT_PATH = {
    KernelFn.IO_SUBMIT_SQES,
    KernelFn.RCU_READ_LOCK_RSRC,
    KernelFn.RCU_READ_UNLOCK_RSRC,
    KernelFn.FGET,
    KernelFn.IO_PREP_RW,
    KernelFn.IO_ISSUE_SQE,
    KernelFn.IO_READ,
    KernelFn.IO_IMPORT_IOVEC,
    KernelFn.FPUT
  };

  /** tctx_task_work per request: complete it, post its CQE, put its rsrc node reference. */
  public static final KernelFn[] TASK_WORK_PATH = {
    KernelFn.TCTX_TASK_WORK,
    KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS,
    KernelFn.RCU_READ_LOCK_RSRC,
    KernelFn.RCU_READ_UNLOCK_RSRC,
    KernelFn.FPUT
  };

  /**
   * How the ring was set up and the files opened.
   *
   * @param iopoll IORING_SETUP_IOPOLL
   * @param oDirect the files are open with O_DIRECT
   * @param nop the SQEs are IORING_OP_NOPs ({@code -N1})
   */
  public record Setup(boolean iopoll, boolean oDirect, boolean nop) {}

  private final Charger charger;
  private final int cpu;
  private final IoRingCtx ring;
  private final EnterLoop loop;
  private final RingTask task;
  private final Setup setup;
  private final Iopoll iopoll;

  /**
   * io_submit_sqes' batch: the requests the last call took, in order, from their SQEs on; the next
   * call starts it anew.
   */
  private final List<IoKiocb> submitting = new ArrayList<>();

  /**
   * @param charger the charger of the task's CPU, {@code cpu}
   */
  public IoUringEnter(
      Charger charger, int cpu, IoRingCtx ring, EnterLoop loop, RingTask task, Setup setup) {
    this.charger = charger;
    this.cpu = cpu;
    this.ring = ring;
    this.loop = loop;
    this.task = task;
    this.setup = setup;
    this.iopoll = new Iopoll(charger, cpu, ring, loop, task);
  }

  /** The ring's IOPOLL reaping, which {@link #ioSubmitSqesReturned} enters. */
  public Iopoll iopoll() {
    return iopoll;
  }

  /**
   * io_uring_enter with {@code args} at {@code t}, the {@code uring_lock} held: the syscall's own
   * work, then io_submit_sqes.
   */
  public EnterCall ioUringEnter(EnterArgs args, long t) {
    loop.enter(args);
    t += charge(ENTER_PATH, 1);
    return ioSubmitSqes(args.toSubmit(), t);
  }

  /**
   * Empty io_uring_enter calls, one after another from {@code t} until one ends at or after {@code
   * untilPs}: an IOPOLL ring with nothing to submit, nothing on its IOPOLL list and no CQE, whose
   * requests all wait at an io-wq worker that cannot run meanwhile. Each is the syscall's own work
   * ({@link #ENTER_PATH}) and its return, with nothing submitted or polled; they are charged in
   * batches, as many as it takes (their prices vary), not one by one.
   *
   * @return when the last ends, and how many there were
   */
  public EmptyEnters emptyEnters(long t, long untilPs) {
    if (!turnsEmpty()) {
      throw new InvariantBroken("empty io_uring_enter calls on a ring with work to do");
    }
    long turnPs = 0;
    for (KernelFn fn : ENTER_PATH) {
      turnPs += charger.costs().callPs(fn);
    }
    turnPs = Math.max(1, turnPs);
    long n = 0;
    while (t < untilPs) {
      long more = (untilPs - t + turnPs - 1) / turnPs;
      n += more;
      t += charger.charge(cpu, CpuTime.SUBMIT, ENTER_PATH, more);
    }
    return new EmptyEnters(t, n);
  }

  /**
   * {@link #emptyEnters} with the ring's {@code uring_lock} ({@code iowq}'s side of it): each call
   * takes and drops it, which the model takes as one hold from the first call to the end of the
   * last, since no worker can ask for it between (the one that has the requests shares the CPU and
   * does not run meanwhile).
   */
  public EmptyEnters emptyEnters(long t, long untilPs, IoWqOwner<?> iowq) {
    EmptyEnters done = emptyEnters(t, untilPs);
    iowq.lock(t);
    if (!iowq.unlock(done.endPs()).isEmpty()) {
      throw new InvariantBroken("a worker waited for the uring_lock of an empty io_uring_enter");
    }
    return done;
  }

  /**
   * Whether the task, back in user space, goes round t/io_uring's loop with nothing to do until its
   * io-wq worker, on its CPU ({@code workerHere}), runs ({@link #emptyEnters}): an IOPOLL ring
   * whose task lives, which t/io_uring enters again ({@code entersAgain}: the call submitted
   * nothing and there is no CQE to reap), with no task_work and nothing on its IOPOLL list, and
   * every request in flight ({@code inflight}, t/io_uring's count; none of them ended) waiting at
   * the worker. A worker on another CPU runs meanwhile, and each turn is a step of its own.
   */
  public boolean waitsForItsWorker(
      boolean workerHere, boolean entersAgain, IoWqOwner<?> iowq, int inflight) {
    return workerHere
        && setup.iopoll()
        && !loop.exiting()
        && entersAgain
        && ring.taskWorkPending() == 0
        && ring.iopollListEmpty()
        && iowq.atWorker() == ring.awaitingCompletion()
        && iowq.atWorker() == inflight;
  }

  /**
   * A worker got the ring's {@code uring_lock} at {@code granted} (-1 while it waits) and put its
   * request on the IOPOLL list. While the task lives its own {@code io_iopoll_check} finds it;
   * after the task ended only the ring's teardown ({@code io_iopoll_try_reap_events}) polls it,
   * once the CPU is free of what the task left ({@code freeAtPs}) and unless a call of the teardown
   * is out already (its loop goes on to it).
   *
   * @return when the teardown polls it, or -1
   */
  public long teardownPollsAt(long granted, long freeAtPs) {
    return granted >= 0 && loop.exiting() && !loop.phase().callOut()
        ? Math.max(granted, freeAtPs)
        : -1;
  }

  /** An IOPOLL ring with nothing on its IOPOLL list and no CQE. */
  private boolean turnsEmpty() {
    return setup.iopoll() && ring.iopollListEmpty() && ring.cqEvents() == 0;
  }

  /**
   * What {@link #emptyEnters} did.
   *
   * @param endPs when the last call returned
   * @param calls how many there were
   */
  public record EmptyEnters(long endPs, long calls) {}

  /**
   * {@code io_submit_sqes}: takes at most {@code toSubmit} SQEs, stopping at the SQ ring's tail,
   * each into a request. Nops complete at issue; on an IOPOLL ring a file without O_DIRECT fails
   * each read at issue ({@code io_rw_init_file}: -EOPNOTSUPP, posted at once); reads go on to
   * allocate their bios, one each.
   */
  EnterCall ioSubmitSqes(int toSubmit, long t) {
    submitting.clear();
    for (int i = 0; i < toSubmit; i++) {
      IoKiocb req = ring.submitSqe();
      if (req == null) {
        break;
      }
      submitting.add(req);
    }
    int n = submitting.size();
    if (setup.nop()) {
      for (int i = 0; i < n; i++) {
        ring.completeInline(submitting.get(i), 0);
      }
      t += charge(NOP_PATH, n);
      loop.submitted(n);
      return ioSubmitSqesReturned(t);
    }
    if (n > 0 && setup.iopoll() && !setup.oDirect()) {
      for (int i = 0; i < n; i++) {
        ring.failRequest(submitting.get(i), -IoRw.EOPNOTSUPP);
      }
      t += charge(FAILED_SUBMIT_PATH, n);
      loop.submitted(n);
      return ioSubmitSqesReturned(t);
    }
    if (n == 0) {
      return ioSubmitSqesReturned(t);
    }
    t += charge(SUBMIT_PATH, n);
    loop.to(Phase.ALLOC_BIOS);
    return new EnterCall.AllocBios(t, n);
  }

  /**
   * The batch's bios, allocated, at {@code t}: {@code __blkdev_direct_IO_async} sets each up
   * ({@link IoRw#blkdevDirectIoAsync}, REQ_NOWAIT: the inline issue) and takes its user pages; the
   * SQEs are consumed, what io_uring_enter will return. Then {@code submit_bio} of each.
   */
  public EnterCall bioAllocated(List<Bio> bios, long t) {
    loop.answered(Phase.ALLOC_BIOS);
    for (int i = 0; i < bios.size(); i++) {
      IoKiocb req = submitting.get(i);
      boolean queuePolls = !setup.iopoll() || task.queuePolls(req);
      IoRw.blkdevDirectIoAsync(bios.get(i), req, setup.iopoll(), true, queuePolls);
    }
    loop.submitted(submitting.size());
    t += charge(IoRw.PAGES_PATH, bios.size());
    return new EnterCall.SubmitBios(t, bios, submitting, plugNrIos(bios.size()));
  }

  /**
   * {@code io_submit_state_start}: io_submit_sqes plugs only more than 2 SQEs (5.16 {@code
   * need_plug}), with {@code nr_ios} the SQEs; without a plug each allocation is of one request.
   */
  public static int plugNrIos(int sqes) {
    return sqes > 2 ? sqes : 1;
  }

  /**
   * What {@code submit_bio} of a group returning leaves to do: the requests whose bio found no tag
   * go to io-wq ({@code punted}, {@link IoRw#reissued}), and {@code bio_put} of every bio that
   * ended, in {@code queue_rq} or with {@code -EAGAIN} ({@code bio_wouldblock_error} ends it).
   */
  public record BioReturned(List<IoKiocb> punted, List<Bio> put) {}

  /**
   * What {@code submit_bio} of a group returning came to: the requests punted to io-wq and when the
   * punt was done, the other CPUs' rings told of what ended here, when the task is done, and the
   * bios to put.
   */
  public record GroupReturned(
      List<IoKiocb> punted,
      long puntedAtPs,
      List<ForeignCompletions.ToRing> elsewhere,
      long atPs,
      List<Bio> put) {}

  /**
   * {@code submit_bio} of the group {@code reqs} returned at {@code t}, {@code ended} in {@code
   * queue_rq} and {@code wouldBlock} without a tag, in the model's order: the issued are listed;
   * the requests whose bio found no tag go to io-wq ({@code iowq}'s {@link IoWqOwner#punt}); the
   * {@code bi_end_io} of what ended ({@link RingTask#endSubmitted}, io-wq hearing of its own); then
   * the caller puts {@link GroupReturned#put}, or goes on when there is none.
   */
  public GroupReturned submitBioReturned(
      List<IoKiocb> reqs, List<Bio> ended, List<Bio> wouldBlock, long t, IoWqOwner<?> iowq) {
    BioReturned r = submitBioReturned(reqs, ended, wouldBlock);
    if (!r.punted().isEmpty()) {
      t = iowq.punt(t, r.punted());
    }
    if (ended.isEmpty()) { // the common case: nothing ended in queue_rq
      return new GroupReturned(r.punted(), t, List.of(), t, r.put());
    }
    ForeignCompletions.Told told = task.endSubmitted(ended, t, iowq::workerDone);
    return new GroupReturned(r.punted(), t, told.rings(), told.atPs(), r.put());
  }

  /**
   * {@code submit_bio} of the group {@code reqs} returned, {@code ended} in {@code queue_rq} and
   * {@code wouldBlock} without a tag: the issued are listed ({@link #submitBioReturned(List,
   * List)}), and the caller punts, completes what ended (their {@code bi_end_io}), then puts.
   */
  public BioReturned submitBioReturned(List<IoKiocb> reqs, List<Bio> ended, List<Bio> wouldBlock) {
    List<IoKiocb> punted = IoRw.reissued(reqs, wouldBlock);
    submitBioReturned(reqs, punted);
    if (wouldBlock.isEmpty()) {
      return new BioReturned(punted, ended);
    }
    List<Bio> put = new ArrayList<>(ended);
    put.addAll(wouldBlock);
    return new BioReturned(punted, put);
  }

  /**
   * {@code submit_bio} of some of the batch's requests returned: on an IOPOLL ring {@code
   * io_iopoll_req_issued} puts each at the tail of the IOPOLL list, but those whose bio found no
   * tag ({@code punted}: their {@code -EAGAIN} sends them to io-wq, whose worker lists them once it
   * issued them).
   */
  public void submitBioReturned(List<IoKiocb> reqs, List<IoKiocb> punted) {
    for (int i = 0; i < reqs.size(); i++) {
      IoKiocb req = reqs.get(i);
      if (setup.iopoll() && !punted.contains(req)) {
        ring.iopollReqIssued(req);
      }
    }
  }

  /**
   * Another CPU's poll or interrupt, or a dmsetup resume's md->wq, ended {@code req} of this ring
   * with {@code res} ({@code ki_complete} is the ring's, wherever the bio ends): on an IOPOLL ring
   * {@code io_complete_rw_iopoll} wrote the result, and the next {@code io_do_iopoll} here finds it
   * done; else {@code io_complete_rw} queued task_work for this ring's task, and the ring's io-wq
   * hears that the request ended ({@code workerDone}).
   */
  public void completedElsewhere(IoKiocb req, int res, Consumer<IoKiocb> workerDone) {
    if (setup.iopoll()) {
      ring.completeRwIopollElsewhere(req, res);
      return;
    }
    ring.completeRw(req, res);
    workerDone.accept(req);
  }

  /**
   * The task_work that other CPUs' completions queued ({@link #completedElsewhere}) reaches the
   * task: a sleeping task is woken ({@code task_work_add} with {@code TWA_SIGNAL}); an ended one's
   * goes to the teardown ({@link #taskWorkToTeardown}). Nothing on an IOPOLL ring, whose
   * completions queue none.
   *
   * @return whether the task is to be woken
   */
  public boolean taskWorkQueuedElsewhere() {
    if (setup.iopoll()) {
      return false;
    }
    if (taskWorkToTeardown()) {
      return false;
    }
    return loop.wakeIfSleeping();
  }

  /**
   * After the task ended, the task_work its completions queued ends their requests at no cost to
   * any CPU, their CQEs dropped. The model's simplification: in the kernel the exiting task runs
   * its own task_work in {@code do_exit} ({@code io_uring_cancel_generic}, {@code
   * io_run_task_work}), and what comes after goes to the ring's {@code fallback_work}, a kworker
   * that posts the CQEs; t/io_uring has stopped reaping by then either way.
   *
   * @return whether the task has ended
   */
  public boolean taskWorkToTeardown() {
    if (!loop.exiting()) {
      return false;
    }
    ring.dropTaskWorkAtExit();
    return true;
  }

  /**
   * The task ends at {@code t} (t/io_uring's thread returns; {@code do_exit} closes the ring): the
   * completions queued as task_work while it was in user space go to the teardown ({@link
   * #taskWorkToTeardown}), later ones too, and the teardown reaps what the IOPOLL list holds
   * ({@link Iopoll#ioIopollTryReapEvents}).
   */
  public EnterCall exit(long t) {
    loop.exit();
    taskWorkToTeardown();
    return iopoll.ioIopollTryReapEvents(t);
  }

  /**
   * io_submit_sqes returns at {@code t}. On an IOPOLL ring, {@code io_iopoll_check} if the caller
   * asked for events and none are posted yet; otherwise {@code io_cqring_wait}: run the task_work
   * that completions queued, posting their CQEs, and sleep until there are {@code min_complete}.
   */
  public EnterCall ioSubmitSqesReturned(long t) {
    return switch (loop.afterSubmit(setup.iopoll(), ring)) {
      case IOPOLL_CHECK -> iopoll.ioIopollCheck(t);
      case RETURN -> ioUringEnterReturns(t);
      case CQRING_WAIT -> ioCqringWait(t);
    };
  }

  /**
   * {@code io_cqring_wait}'s loop at {@code t}: run the task_work, then return with enough events,
   * or sleep until a completion wakes the task. One that waits for more than are in flight would
   * sleep for good ({@link EnterCall.Hang}).
   */
  EnterCall ioCqringWait(long t) {
    long at = t + tctxTaskWork();
    return switch (loop.cqringWait(ring)) {
      case RETURN -> ioUringEnterReturns(at);
      case HANG ->
          new EnterCall.Hang(schedule(at), loop.args().toWait(), ring.cqEvents(), loop.ret());
      case SLEEP -> {
        long asleep = schedule(at);
        loop.to(Phase.SLEEP);
        yield new EnterCall.Sleep(asleep);
      }
    };
  }

  /** {@code schedule()} from {@code t}: when it switched. */
  private long schedule(long t) {
    return t + charger.charge(cpu, CpuTime.SUBMIT, KernelFn.SCHEDULE, 1);
  }

  /**
   * The woken task is switched back in at {@code t}: {@code schedule()} returns, and it waits on.
   */
  public EnterCall scheduled(long t) {
    loop.switchedIn();
    return ioCqringWait(schedule(t));
  }

  private EnterCall ioUringEnterReturns(long t) {
    loop.to(Phase.RETURN);
    return new EnterCall.Return(t);
  }

  /**
   * The syscall is back in user space at {@code t}: {@code exit_to_user_mode_loop} runs the
   * task_work a completion queued (TWA_SIGNAL) first.
   *
   * @return when user space runs
   */
  public long exitToUserMode(long t) {
    loop.answered(Phase.RETURN);
    return t + tctxTaskWork();
  }

  /**
   * {@code tctx_task_work}: the completions queued since it last ran post their CQEs (a run's own
   * work, then each request's).
   *
   * @return the time it took
   */
  long tctxTaskWork() {
    if (ring.taskWorkPending() == 0) {
      return 0;
    }
    long ps = charger.charge(cpu, CpuTime.SUBMIT, charger.costs().tctxTaskWorkPerRun(), 1);
    return ps + charge(TASK_WORK_PATH, ring.runTaskWork());
  }

  private long charge(KernelFn[] fns, int calls) {
    return charger.charge(cpu, CpuTime.SUBMIT, fns, calls);
  }
}

package blksim.queues.io_uring;

import blksim.queues.books.InvariantBroken;

/**
 * The state of one submitter thread's {@code io_uring_enter} loop (fs/io_uring.c, 5.16-5.18): the
 * phase it is in, each phase a call that is out or a place it waits, and the decisions between
 * them: after {@code io_submit_sqes}, {@code io_iopoll_check} or {@code io_cqring_wait}; after each
 * {@code io_do_iopoll}, poll again or return. {@link IoUringEnter} and {@link Iopoll} move it from
 * phase to phase as they return each {@link EnterCall}; the CPU that runs the thread makes the
 * calls and brings their answers back. Its preadv2 and libaio loops drive it themselves.
 */
public final class EnterLoop {
  /** Consecutive polls that find nothing before the model is declared stuck. */
  public static final int MAX_EMPTY_POLLS = 1_000_000;

  /** Where the thread is. */
  public enum Phase {
    /** Running on its CPU: in user space, or in the kernel between two calls. */
    RUNNING(false),
    /** {@code io_submit_sqes}: the batch's bios are being allocated. */
    ALLOC_BIOS(true),
    /** {@code submit_bio} of one group of the batch, to one device. */
    SUBMIT_BIOS(true),
    /** {@code bio_put} of the bios that ended, or found no tag, at submission. */
    PUT_SUBMITTED(true),
    /** {@code io_do_iopoll}: {@code bio_poll} of the head of the IOPOLL list. */
    POLL(true),
    /** {@code bio_put} of the bios the poll ended. */
    PUT_POLLED(true),
    /** The syscall returning to user space. */
    RETURN(true),
    /**
     * A {@code might_sleep} that schedules ({@code io_iopoll_check}'s {@code mutex_lock} with
     * TIF_NEED_RESCHED set): what woke, ksoftirqd, runs first.
     */
    RESCHED(true),
    /** {@code io_cqring_wait} put the thread to sleep; task_work wakes it. */
    SLEEP(false),
    /**
     * {@code blk_mq_get_tag} put the thread to sleep on the tag wait queue ({@code io_submit}'s
     * bios have no REQ_NOWAIT); a freed tag wakes it.
     */
    TAG_SLEEP(false),
    /** The thread ended; what it left in the kernel is reaped by the ring's teardown. */
    EXITED(false);

    private final boolean callOut;

    Phase(boolean callOut) {
      this.callOut = callOut;
    }

    /** Whether a call of the thread is out: its CPU is busy with it until the answer comes. */
    public boolean callOut() {
      return callOut;
    }
  }

  /** What {@code io_uring_enter} does after {@code io_submit_sqes}. */
  public enum AfterSubmit {
    /** {@code io_iopoll_check}: poll for events. */
    IOPOLL_CHECK,
    /** Return to user space. */
    RETURN,
    /** {@code io_cqring_wait}. */
    CQRING_WAIT
  }

  /** What {@code io_cqring_wait} does, its task_work run. */
  public enum Wait {
    /** Enough events, or none asked for: return. */
    RETURN,
    /** It waits for more than are in flight: the real tool hangs here; the model stops it. */
    HANG,
    /** {@code schedule()} until a completion's task_work wakes it. */
    SLEEP
  }

  private final String owner;
  private Phase phase = Phase.RUNNING;
  private EnterArgs args;
  private int ret;
  private int nrEvents;
  private int emptyPolls;
  private boolean woken;
  private boolean exiting;

  /**
   * @param owner the thread's CPU, for messages
   */
  public EnterLoop(String owner) {
    this.owner = owner;
  }

  /** The thread makes the call of {@code next}, or waits there. */
  public void to(Phase next) {
    if (phase.callOut()) {
      throw new InvariantBroken(owner + ": " + next + " while " + phase + " is out");
    }
    phase = next;
  }

  /**
   * The answer of the call of {@code expected} came back: the thread runs again.
   *
   * @throws InvariantBroken if the thread was not waiting for that answer
   */
  public void answered(Phase expected) {
    if (phase != expected) {
      throw new InvariantBroken(
          owner + ": an answer to " + expected + " while the thread is in " + phase);
    }
    phase = Phase.RUNNING;
  }

  public Phase phase() {
    return phase;
  }

  /** io_uring_enter begins with {@code args}. */
  public void enter(EnterArgs args) {
    this.args = args;
    this.ret = 0;
    this.nrEvents = 0;
  }

  /** io_submit_sqes consumed {@code n} SQEs: io_uring_enter returns that many. */
  public void submitted(int n) {
    ret = n;
  }

  /** What io_uring_enter returns to user space. */
  public int ret() {
    return ret;
  }

  public EnterArgs args() {
    return args;
  }

  /** After io_submit_sqes. */
  public AfterSubmit afterSubmit(boolean iopoll, IoRingCtx ring) {
    if (!iopoll) {
      return AfterSubmit.CQRING_WAIT;
    }
    return args.getEvents() && ring.cqEvents() == 0 && !ring.iopollListEmpty()
        ? AfterSubmit.IOPOLL_CHECK
        : AfterSubmit.RETURN;
  }

  /** io_cqring_wait's loop, after its task_work ran. */
  public Wait cqringWait(IoRingCtx ring) {
    if (!args.getEvents() || ring.cqEvents() >= args.toWait()) {
      return Wait.RETURN;
    }
    // t/io_uring may ask for more events than it has in flight (-d3 -s2 waits for 3 with 2 out):
    // io_cqring_wait then sleeps for good.
    return ring.awaitingCompletion() == 0 ? Wait.HANG : Wait.SLEEP;
  }

  /**
   * A poll found nothing.
   *
   * @throws InvariantBroken after {@link #MAX_EMPTY_POLLS} of them in a row
   */
  public void foundNothing() {
    if (++emptyPolls >= MAX_EMPTY_POLLS) {
      throw new InvariantBroken(owner + ": " + emptyPolls + " polls in a row found nothing");
    }
  }

  /** A poll found something, or events were posted. */
  public void foundSome() {
    emptyPolls = 0;
  }

  /**
   * The end of io_do_iopoll: {@code posted} CQEs were posted for the completed prefix.
   *
   * @return whether io_iopoll_check polls again: fewer events than asked for, and more to poll
   */
  public boolean pollAgain(int posted, IoRingCtx ring) {
    nrEvents += posted;
    if (posted > 0) {
      emptyPolls = 0;
    }
    return nrEvents < args.toWait() && !ring.iopollListEmpty();
  }

  /**
   * A completion's task_work was queued while the thread slept: {@code try_to_wake_up}.
   *
   * @return whether this woke it (the first time only)
   */
  public boolean wakeIfSleeping() {
    if (phase == Phase.SLEEP && !woken) {
      woken = true;
      return true;
    }
    return false;
  }

  public boolean woken() {
    return woken;
  }

  /** The woken thread is switched back in. */
  public void switchedIn() {
    answered(Phase.SLEEP);
    woken = false;
  }

  /** The thread ends. */
  public void exit() {
    exiting = true;
    to(Phase.EXITED);
  }

  /** After the thread ended, the teardown polls what its ring still has in the kernel. */
  public void teardownPolls() {
    if (phase == Phase.EXITED) {
      phase = Phase.RUNNING;
    }
  }

  /** The teardown is idle again. */
  public void teardownIdle() {
    if (exiting && !phase.callOut()) {
      phase = Phase.EXITED;
    }
  }

  public boolean exiting() {
    return exiting;
  }

  /**
   * Whether the run queue may switch the task where it schedules: at its syscall's return to user
   * space ({@code atReturn}), or, at a {@code might_sleep}, only after it ended (its ring
   * teardown's {@code cond_resched}). The model's simplification: under CONFIG_PREEMPT_VOLUNTARY
   * {@code io_iopoll_check}'s {@code mutex_lock} is a {@code might_sleep} that would switch on any
   * TIF_NEED_RESCHED; the model runs ksoftirqd there, but for another task a live one only stops
   * polling ({@code need_resched}) and switches at its return, one pass later than the kernel.
   */
  public boolean preemptibleAt(boolean atReturn) {
    return atReturn || exiting;
  }
}

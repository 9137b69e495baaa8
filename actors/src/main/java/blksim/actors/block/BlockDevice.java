package blksim.actors.block;

import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.queues.block.bio.Bio;
import blksim.queues.cost.CpuTime;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.List;

/**
 * The block-device protocol: what a submitter sends a block device, whichever kind it is, and what
 * the device answers. A blk-mq device takes it on each hardware queue ({@code submit_bio} → {@code
 * blk_mq_submit_bio}, {@code bio_poll} → {@code blk_mq_poll} by the bio's cookie); a bio-based
 * device takes it on its disk ({@code dm_submit_bio}, {@code dm_poll_bio}). A component that
 * implements it receives these commands through an adapter of its own protocol; callers receive the
 * replies through an adapter of theirs.
 */
public final class BlockDevice {
  private BlockDevice() {}

  /** What a block device takes. */
  public sealed interface Command extends SimMessage
      permits SubmitBio, PollBio, TagRetry, SpinFor {}

  /** What a block device answers. */
  public sealed interface Reply extends SimMessage
      permits Submitted, Polled, IrqEnded, Slept, Woken, TagFreed {}

  /**
   * Who called: the task whose execution this is, by its CPU and its place there, where the call
   * returns, and where the device's interrupts for it go.
   *
   * @param cpu the calling CPU's number
   * @param slot the calling task's place on that CPU: 0, 1, ... in the order of its threads; an
   *     io-wq worker's own value; {@link #IRQ} for the CPU's interrupt path
   * @param what what the calling CPU is doing, for its time split
   * @param replyTo where the answer to this call goes
   * @param interrupts where the driver raises the interrupts of what it queues on this CPU (its
   *     hrtimers), or null for a caller that takes none
   * @param irqEnds where the requests those interrupts end are answered: the interrupt path of that
   *     CPU, whoever stacked in between made the call; null with {@code interrupts}
   */
  public record Call(
      int cpu,
      int slot,
      CpuTime what,
      SimRef<Reply> replyTo,
      SimRef<NullBlkActor.Interrupt> interrupts,
      SimRef<Reply> irqEnds) {

    /**
     * The slot of a CPU's interrupt path ({@code hrtimer_interrupt}, ksoftirqd): it runs between
     * the steps of that CPU's tasks and is none of them, and its answers are that CPU's {@code
     * irqEnds}.
     */
    public static final int IRQ = -2;

    /** The calling task, as the hardware queue's models keep what they keep of it. */
    public TaskOnCpu task() {
      return new TaskOnCpu(cpu, slot);
    }

    /** The call as a driver sees it: whose execution, and where its interrupts go. */
    public NullBlkActor.Exec exec() {
      return new NullBlkActor.Exec(cpu, slot, what, interrupts);
    }

    /** The same execution, answered at {@code to}: a stacked device calling the one below. */
    public Call replyingTo(SimRef<Reply> to) {
      return new Call(cpu, slot, what, to, interrupts, irqEnds);
    }
  }

  /**
   * {@code submit_bio} of each bio, under one plug.
   *
   * @param plugNrIos the plug's {@code nr_ios} when these bios come to allocate (5.16: the SQEs
   *     io_submit_sqes submits, at most 32, and 1 once a request of the plug was allocated, or
   *     without a plug)
   */
  public record SubmitBio(long atPs, Call call, List<Bio> bios, int plugNrIos) implements Command {
    /** Without a plug's batch. */
    public SubmitBio(long atPs, Call call, List<Bio> bios) {
      this(atPs, call, bios, 1);
    }
  }

  /**
   * A task that slept in {@code blk_mq_get_tag} (a bio without REQ_NOWAIT that found no tag) runs
   * again: it tries the tag again, and goes on with the submission of {@code bios}, the one that
   * found no tag first ({@link Slept#bios}).
   */
  public record TagRetry(long atPs, Call call, List<Bio> bios) implements Command {}

  /**
   * The caller spins for a tag from {@code atPs} until {@code untilPs} (an io-wq worker's {@code
   * -EAGAIN} loop, which looks at the tags each turn): the first tag freed before then, or one free
   * already, ends spin {@code spin} with {@link TagFreed}.
   */
  public record SpinFor(long atPs, Call call, long untilPs, long spin) implements Command {}

  /** A tag was freed at {@code atPs}, or was free, while the caller spun ({@link SpinFor}). */
  public record TagFreed(long atPs, long spin) implements Reply {}

  /**
   * The caller's task went to sleep for a tag at {@code atPs}: its CPU is idle from then. {@code
   * bios} are what it has still to submit, the one that found no tag first; the bios before them
   * were plugged, and {@code schedule()} flushed the plug ({@code blk_flush_plug}) before sleeping.
   */
  public record Slept(long atPs, List<Bio> bios) implements Reply {}

  /**
   * The caller's task sleeps on the hardware queue's tag wait queue ({@code
   * sbitmap_prepare_to_wait} and {@code io_schedule} in {@code blk_mq_get_tag}); a freed tag woke
   * it ({@code try_to_wake_up}) at {@code atPs}. When its CPU runs it, it sends {@link TagRetry}.
   */
  public record Woken(long atPs) implements Reply {}

  /**
   * {@code bio_poll} of {@code bio}, on behalf of {@code call}.
   *
   * @param batch whether the caller passes an {@code io_comp_batch} (io_uring's io_do_iopoll, DM
   *     passing it on); a sync read's {@code bio_poll(&bio, NULL, 0)} does not
   */
  public record PollBio(long atPs, Call call, Bio bio, boolean batch) implements Command {
    /** With a batch. */
    public PollBio(long atPs, Call call, Bio bio) {
      this(atPs, call, bio, true);
    }
  }

  /**
   * The device took the bios and queued {@code count} of them; {@code ended} are the bios it
   * completed at once (interrupt-driven queues with irqmode 0 or 1), {@code wouldBlock} those that
   * found no tag and ended with {@code BLK_STS_AGAIN}.
   */
  public record Submitted(long atPs, int count, List<Bio> ended, List<Bio> wouldBlock)
      implements Reply {}

  /** A poll returned; {@code ended} are the bios it ended. */
  public record Polled(long atPs, List<Bio> ended) implements Reply {}

  /** An interrupt ended the requests of expired timers; these are their bios. */
  public record IrqEnded(long atPs, List<Bio> ended) implements Reply {}

  /** EAGAIN, what {@code blk_status_to_errno(BLK_STS_AGAIN)} gives. */
  public static final int BLK_STS_AGAIN_ERRNO = 11;
}

package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import blksim.queues.io_uring.EnterLoop.Phase;
import java.util.List;

/**
 * What a task's {@code io_uring_enter} does next where its path leaves io_uring (fs/io_uring.c
 * 5.16-5.18): a call into another component (the bio set, a block device, the ring's {@code
 * uring_lock} that its io-wq worker may hold, the CPU's scheduler), a sleep, or the syscall's
 * return. {@link IoUringEnter} and {@link Iopoll} return one at each such point, having put the
 * task's {@link EnterLoop} in the phase {@link #resumesIn()} names; the CPU makes the call (a
 * message) and brings its answer back to the method each record names (docs/code-map.md sections 5
 * to 7).
 */
public sealed interface EnterCall {
  /** When the call is made, in virtual time. */
  long atPs();

  /** The phase the task is in from this call until its answer comes back. */
  Phase resumesIn();

  /**
   * {@code bio_alloc_kiocb} of the batch's {@code nr} bios from the raw block device's bio_set
   * ({@code blkdev_dio_pool}), on behalf of {@code __blkdev_direct_IO_async}; the bios go to {@link
   * IoUringEnter#bioAllocated}.
   */
  record AllocBios(long atPs, int nr) implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.ALLOC_BIOS;
    }
  }

  /**
   * {@code submit_bio} of each bio of the batch, set up, under a plug of {@code plugNrIos} ({@link
   * IoUringEnter#plugNrIos}); {@code reqs} are their requests, in the same order (io_submit_sqes'
   * own list, which holds them until the next io_uring_enter). The CPU submits them to each
   * hardware queue (or bio-based disk) in turn, hands each return to {@link
   * IoUringEnter#submitBioReturned}, and ends with {@link IoUringEnter#ioSubmitSqesReturned}.
   */
  record SubmitBios(long atPs, List<Bio> bios, List<IoKiocb> reqs, int plugNrIos)
      implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.RUNNING;
    }
  }

  /**
   * {@code bio_poll} of {@code bio}, the bio of {@code req} at the head of the IOPOLL list ({@code
   * iocb_bio_iopoll}, 5.15 {@code blkdev_iopoll}); the bios it ends go to {@link Iopoll#bioPolled}.
   */
  record PollBio(long atPs, IoKiocb req, Bio bio) implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.POLL;
    }
  }

  /**
   * {@code bio_put} of the bios a poll ended, their requests completed; after it, {@link
   * Iopoll#biosPut}. Completions of other CPUs' rings that the poll gathered go to those CPUs first
   * ({@code elsewhere}, each at its time; {@code atPs} is after the last).
   */
  record PutBios(long atPs, List<Bio> bios, List<ForeignCompletions.ToRing> elsewhere)
      implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.PUT_POLLED;
    }
  }

  /**
   * {@code io_iopoll_check}'s {@code mutex_lock(&ctx->uring_lock)}: between {@code io_submit_sqes}
   * and the poll the lock is dropped and taken again, and a waiting io-wq worker gets in between;
   * once the task has it, {@link Iopoll#ioDoIopoll} at that time.
   */
  record UringLock(long atPs) implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.RUNNING;
    }
  }

  /**
   * A {@code might_sleep} that schedules: what woke (ksoftirqd), or another task whose turn it is
   * in the ring's teardown, runs first; then {@link Iopoll#rescheduled}.
   */
  record Resched(long atPs) implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.RESCHED;
    }
  }

  /**
   * The syscall returns to user space, dropping the {@code uring_lock}; there {@link
   * IoUringEnter#exitToUserMode}.
   */
  record Return(long atPs) implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.RETURN;
    }
  }

  /**
   * {@code io_cqring_wait} has called {@code schedule()}: the task sleeps from {@code atPs}, its
   * CPU idle, until a completion's task_work wakes it ({@link IoUringEnter#scheduled}).
   */
  record Sleep(long atPs) implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.SLEEP;
    }
  }

  /**
   * {@code io_cqring_wait} waits for more completions than can come: t/io_uring would sleep here
   * until it is killed; blksim ends the thread at {@code atPs}.
   *
   * @param minComplete the {@code min_complete} it asked for
   * @param posted the CQEs there are, all that will come
   * @param accepted SQEs the kernel took in the call
   */
  record Hang(long atPs, int minComplete, long posted, int accepted) implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.EXITED;
    }
  }

  /**
   * The ring's teardown has nothing left to poll: its CPU is free of the task from {@code atPs}.
   */
  record TeardownIdle(long atPs) implements EnterCall {
    @Override
    public Phase resumesIn() {
      return Phase.EXITED;
    }
  }
}

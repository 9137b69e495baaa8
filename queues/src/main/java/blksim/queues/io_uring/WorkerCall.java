package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import java.util.List;

/**
 * What an io-wq worker does next where its path leaves io-wq and io_uring ({@link IoWorker}): a
 * call into another component (the bio set, a block device, its ring's {@code uring_lock}), its
 * {@code -EAGAIN} loop, or its sleep. The CPU that runs the worker makes the call (a message) and
 * brings its answer back to the method each record names.
 */
public sealed interface WorkerCall {
  /** When the call is made, in virtual time. */
  long atPs();

  /**
   * {@code bio_alloc_kiocb} of one bio from the raw block device's bio_set for the request it
   * issues; the bio goes to {@link IoWorker#bioAllocated}.
   */
  record AllocBio(long atPs) implements WorkerCall {}

  /**
   * {@code submit_bio} of {@code bio}, set up for {@code req} ({@code polled}: REQ_POLLED kept, the
   * queue of its file polls); its return goes to {@link IoWorker#submitted}.
   */
  record SubmitBio(long atPs, Bio bio, IoKiocb req, boolean polled) implements WorkerCall {}

  /**
   * Woken for the tag its bio slept for: {@code blk_mq_get_tag} tries again for {@code bio}, on the
   * queue it slept on; its return goes to {@link IoWorker#submitted}.
   */
  record TagRetry(long atPs, Bio bio) implements WorkerCall {}

  /**
   * {@code bio_put} of {@code bios}; after it, {@link IoWorker#put}. The requests of {@code
   * completed} ended (their bio_endio ran here, in queue_rq): their ring's CPU hears of them first.
   */
  record PutBios(long atPs, List<Bio> bios, List<Bio> completed) implements WorkerCall {}

  /**
   * {@code io_iopoll_req_issued} with {@code IO_URING_F_UNLOCKED}: the ring's {@code uring_lock},
   * asked of the thread's CPU for {@code req}; once the worker has it, {@link
   * IoWorker#lockGranted}.
   */
  record UringLock(long atPs, IoKiocb req) implements WorkerCall {}

  /**
   * After {@code cond_resched}, the issue again: on its thread's CPU the loop turns in closed form
   * until something ends it ({@link IoWorker#spinEnds}), then {@link IoWorker#rescheduled}.
   */
  record Spin(long atPs) implements WorkerCall {}

  /** No work left: the worker sleeps, its CPU free from {@code atPs} on. */
  record Sleep(long atPs) implements WorkerCall {}
}

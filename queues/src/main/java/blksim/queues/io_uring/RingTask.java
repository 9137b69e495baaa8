package blksim.queues.io_uring;

import blksim.queues.block.bio.Bio;
import java.util.List;
import java.util.function.Consumer;

/**
 * The task a ring's path runs in, as io_uring's code asks about it: the state of its CPU's
 * scheduler, the rings of the other tasks on that CPU, and the queues its files are on. The CPU
 * that runs the task answers.
 */
public interface RingTask {
  /** ksoftirqd was woken on the task's CPU ({@code TIF_NEED_RESCHED} from its wake-up). */
  boolean ksoftirqdPending();

  /**
   * {@code need_resched()} of the task at {@code t}: its CPU's run queue asks it to let another run
   * (never for a task alone on its CPU). It may take the tick up to {@code t} into account, so it
   * is asked only where the kernel asks it.
   */
  boolean needResched(long t);

  /** The ring of another task on the same CPU whose requests name {@code owner}, or null. */
  IoRingCtx ringOf(int owner);

  /**
   * {@code QUEUE_FLAG_POLL} of the queue {@code req}'s file is on: whether a polled bio stays
   * polled there (docs/kernel.md section 8, "No poll queue").
   */
  boolean queuePolls(IoKiocb req);

  /**
   * {@code bi_end_io} of the bios that ended in {@code queue_rq} while the task submitted, from
   * {@code t}, on its CPU: its own ring's requests complete ({@code done} hears of each), a sibling
   * task's wakes it, another CPU's ring's are gathered and their lines charged.
   *
   * @return the other CPUs' rings' messages, and when the task is done
   */
  ForeignCompletions.Told endSubmitted(List<Bio> ended, long t, Consumer<IoKiocb> done);
}

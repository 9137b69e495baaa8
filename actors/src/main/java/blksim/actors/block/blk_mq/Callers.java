package blksim.actors.block.blk_mq;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.BlockDevice.Call;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.SimRef;
import blksim.queues.books.InvariantBroken;
import blksim.queues.kernel.sched.TaskOnCpu;
import java.util.HashMap;
import java.util.Map;

/**
 * The tasks that called a hardware queue, each by its CPU and its place there ({@link TaskOnCpu}):
 * what the queue keeps of each one's call while the driver has it, whose answer carries only the
 * execution ({@link NullBlkActor.Exec}), and where each CPU's interrupts end. Two tasks of one CPU
 * have a call each: one sleeps for a tag while the other calls.
 */
final class Callers {
  /** The last call of each task: where the driver's answers for it go. */
  private final Map<TaskOnCpu, Call> calls = new HashMap<>();

  /** Whether each task's poll under way passes an io_comp_batch (a sync read's does not). */
  private final Map<TaskOnCpu, Boolean> batched = new HashMap<>();

  /** Where the ends of each CPU's interrupts go: that CPU's interrupt path, by CPU number. */
  private final Map<Integer, SimRef<BlockDevice.Reply>> irqEnds = new HashMap<>();

  /** {@code call} goes to the driver. */
  void remember(Call call) {
    calls.put(call.task(), call);
    if (call.irqEnds() != null) {
      irqEnds.put(call.cpu(), call.irqEnds());
    }
  }

  /** {@code call} polls, passing an io_comp_batch ({@code batch}) or not. */
  void polls(Call call, boolean batch) {
    remember(call);
    batched.put(call.task(), batch);
  }

  /** Whether the poll under way of {@code task} passes an io_comp_batch. */
  boolean batched(TaskOnCpu task) {
    return batched.getOrDefault(task, true);
  }

  /** Where the ends of {@code cpu}'s interrupts go. */
  SimRef<BlockDevice.Reply> irqEnds(int cpu) {
    return irqEnds.get(cpu);
  }

  /**
   * The call a driver's answer that carries {@code e} goes on as: that task's last call, with the
   * answer's execution; for a CPU's interrupt path ({@link Call#IRQ}), which calls the driver and
   * never this queue, a call answered where that CPU's interrupts end.
   *
   * @param queue the queue's name, for what the books say if that task never called
   */
  Call answered(String queue, NullBlkActor.Exec e) {
    if (e.slot() == Call.IRQ) {
      SimRef<BlockDevice.Reply> ends = irqEnds.get(e.cpu());
      if (ends == null) {
        throw new InvariantBroken(
            queue + ": an interrupt on cpu" + e.cpu() + " ended requests no call of it queued");
      }
      return new Call(e.cpu(), Call.IRQ, e.what(), ends, e.interrupts(), ends);
    }
    Call c = calls.get(new TaskOnCpu(e.cpu(), e.slot()));
    if (c == null) {
      throw new InvariantBroken(
          queue
              + ": the driver answered cpu"
              + e.cpu()
              + " slot "
              + e.slot()
              + ", who never called");
    }
    return new Call(e.cpu(), e.slot(), e.what(), c.replyTo(), e.interrupts(), c.irqEnds());
  }
}

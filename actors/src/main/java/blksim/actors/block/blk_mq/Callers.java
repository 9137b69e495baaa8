package blksim.actors.block.blk_mq;

import blksim.actors.block.BlockDevice;
import blksim.actors.block.BlockDevice.Call;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.SimRef;
import blksim.queues.books.InvariantBroken;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPUs that called a hardware queue, by CPU number: what the queue keeps of each one's call
 * while the driver has it, whose answer carries only the execution ({@link NullBlkActor.Exec}), and
 * where each one's interrupts end.
 */
final class Callers {
  /** The last call of each CPU, by CPU number: where the driver's answers for it go. */
  private final Map<Integer, Call> calls = new HashMap<>();

  /** Whether each CPU's poll under way passes an io_comp_batch (a sync read's does not). */
  private final Map<Integer, Boolean> batched = new HashMap<>();

  /** Where the ends of each CPU's interrupts go: that CPU's interrupt path, by CPU number. */
  private final Map<Integer, SimRef<BlockDevice.Reply>> irqEnds = new HashMap<>();

  /** {@code call} goes to the driver. */
  void remember(Call call) {
    calls.put(call.cpu(), call);
    if (call.irqEnds() != null) {
      irqEnds.put(call.cpu(), call.irqEnds());
    }
  }

  /** {@code call} polls, passing an io_comp_batch ({@code batch}) or not. */
  void polls(Call call, boolean batch) {
    remember(call);
    batched.put(call.cpu(), batch);
  }

  /** Whether the poll under way of {@code cpu} passes an io_comp_batch. */
  boolean batched(int cpu) {
    return batched.getOrDefault(cpu, true);
  }

  /** Where the ends of {@code cpu}'s interrupts go. */
  SimRef<BlockDevice.Reply> irqEnds(int cpu) {
    return irqEnds.get(cpu);
  }

  /**
   * The call a driver's answer that carries {@code e} goes on as: that CPU's last call, with the
   * answer's execution.
   *
   * @param queue the queue's name, for what the books say if that CPU never called
   */
  Call answered(String queue, NullBlkActor.Exec e) {
    Call c = calls.get(e.cpu());
    if (c == null) {
      throw new InvariantBroken(
          queue + ": the driver answered cpu" + e.cpu() + ", who never called");
    }
    return new Call(e.cpu(), e.slot(), e.what(), c.replyTo(), e.interrupts(), c.irqEnds());
  }
}

package blksim.queues.kernel.softirq;

import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.kernel.sched.PendingTicks;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One CPU's interrupt context (kernel/softirq.c's {@code irq_enter}/{@code irq_exit} and
 * ksoftirqd's run, kernel/time/hrtimer.c's {@code hrtimer_interrupt}): what entering it costs, and
 * the devices' work it runs, one hardware queue's group after another.
 *
 * <p>A hard interrupt is entered once, takes the scheduler ticks that waited for it with their work
 * ({@code tick_sched_timer}; the SCHED_SOFTIRQ load balance they raised, run at {@code irq_exit};
 * the vmstat kworker their timers woke, which preempts the task as the interrupt returns), then the
 * expired timers. ksoftirqd is woken by the raise (charged to the task that raised), switched to
 * when it preempts the running task (and back when it is done), and makes one pass with {@code
 * blk_done_softirq} per run, once more for what was raised while it ran ({@code __do_softirq} finds
 * the softirq pending again). Expired timers of one hardware queue end together ({@code
 * __hrtimer_run_queues} runs them one after another, each {@code end_cmd} on its queue), and so do
 * the requests BLOCK_SOFTIRQ takes off the CPU's list; one group after another, in the order each
 * queue first appears.
 *
 * @param <E> a timer that fired or a request raised: the devices' work the context runs
 */
public final class IrqContext<E> {
  /** A hard interrupt's entry and exit, and the hrtimer interrupt handler, per interrupt. */
  static final KernelFn[] IRQ_ENTRY_PATH = {KernelFn.IRQ_ENTRY, KernelFn.HRTIMER_INTERRUPT};

  /** The scheduler tick's own work, in a timer interrupt already entered. */
  static final KernelFn[] TICK_PATH = {KernelFn.TICK_SCHED_TIMER};

  /** SCHED_SOFTIRQ at the tick's irq_exit: the periodic load balance. */
  static final KernelFn[] LOAD_BALANCE_PATH = {KernelFn.RUN_REBALANCE_DOMAINS};

  /** The vmstat kworker, woken by its timer in the tick, preempting the thread at irq_exit. */
  static final KernelFn[] VMSTAT_PATH = {KernelFn.VMSTAT_UPDATE};

  /**
   * The raiser's part of a BLOCK_SOFTIRQ run, once per ksoftirqd wake: the first request on the
   * empty list raised the softirq from task context, which woke ksoftirqd.
   */
  static final KernelFn[] WAKE_KSOFTIRQD_PATH = {KernelFn.RAISE_SOFTIRQ, KernelFn.TRY_TO_WAKE_UP};

  /** ksoftirqd's pass over the pending softirqs, and BLOCK_SOFTIRQ's taking of the CPU's list. */
  static final KernelFn[] BLOCK_SOFTIRQ_PATH = {KernelFn.RUN_KSOFTIRQD, KernelFn.BLK_DONE_SOFTIRQ};

  private final Charger charger;
  private final int cpu;
  private final Function<? super E, ?> queueOf;
  private final ArrayDeque<List<E>> groups = new ArrayDeque<>();

  /** The context the running interrupt's work is in: a hard interrupt, or ksoftirqd. */
  private CpuTime what = CpuTime.IRQ;

  /**
   * @param charger what the CPU's interrupts are charged to
   * @param cpu the CPU's number
   * @param queueOf the hardware queue (and kind) whose group an item of work joins; items with
   *     equal keys end together
   */
  public IrqContext(Charger charger, int cpu, Function<? super E, ?> queueOf) {
    this.charger = charger;
    this.cpu = cpu;
    this.queueOf = queueOf;
  }

  /**
   * A hard interrupt begins at {@code t}: its entry and {@code hrtimer_interrupt}, the ticks that
   * waited ({@code ticks}), then {@code fired}, grouped by queue.
   *
   * @return when its own work is done, and the groups' begins
   */
  public long enter(long t, PendingTicks.Ticks ticks, List<? extends E> fired) {
    what = CpuTime.IRQ;
    t += charger.charge(cpu, CpuTime.IRQ, IRQ_ENTRY_PATH, 1);
    if (ticks.ticks() > 0) {
      t += charger.charge(cpu, CpuTime.IRQ, TICK_PATH, ticks.ticks());
    }
    if (ticks.balances() > 0) {
      t += charger.charge(cpu, CpuTime.IRQ, LOAD_BALANCE_PATH, ticks.balances());
    }
    if (ticks.vmstats() > 0) {
      t += charger.charge(cpu, CpuTime.KWORKER, VMSTAT_PATH, ticks.vmstats());
    }
    more(fired);
    return t;
  }

  /** More of the devices' work, in the context that runs: timers that expired meanwhile. */
  public void more(List<? extends E> fired) {
    Map<Object, List<E>> byQueue = new LinkedHashMap<>();
    for (E f : fired) {
      byQueue.computeIfAbsent(queueOf.apply(f), q -> new ArrayList<>()).add(f);
    }
    groups.addAll(byQueue.values());
  }

  /**
   * ksoftirqd runs BLOCK_SOFTIRQ at {@code t}, a point where the task schedules: the raiser's wake
   * of it, the switch to it when it preempts the task (a task that goes to sleep has paid for that
   * switch), its pass, then {@code raised}, grouped by queue.
   *
   * @return when its pass is done, and the groups' begins
   */
  public long softirq(long t, List<? extends E> raised, boolean preempts) {
    what = CpuTime.KSOFTIRQD;
    t += charger.charge(cpu, CpuTime.SUBMIT, WAKE_KSOFTIRQD_PATH, 1);
    if (preempts) {
      t += charger.charge(cpu, CpuTime.KSOFTIRQD, KernelFn.SCHEDULE, 1);
    }
    return moreSoftirq(t, raised);
  }

  /**
   * More requests raised while BLOCK_SOFTIRQ ran: {@code __do_softirq} finds the softirq pending
   * again and runs it once more.
   */
  public long moreSoftirq(long t, List<? extends E> raised) {
    t += charger.charge(cpu, CpuTime.KSOFTIRQD, BLOCK_SOFTIRQ_PATH, 1);
    more(raised);
    return t;
  }

  /** ksoftirqd, done at {@code t}, switches back to the task it preempted: when it has. */
  public long switchBack(long t) {
    return t + charger.charge(cpu, CpuTime.KSOFTIRQD, KernelFn.SCHEDULE, 1);
  }

  /** Whether the running context is ksoftirqd's. */
  public boolean inSoftirq() {
    return what == CpuTime.KSOFTIRQD;
  }

  /** What the running context's work is charged as: {@link CpuTime#IRQ} or ksoftirqd's. */
  public CpuTime what() {
    return what;
  }

  /** The group whose requests end next, or null when none waits. */
  public List<E> nextGroup() {
    return groups.peekFirst();
  }

  /** The first group's requests have ended. */
  public void groupEnded() {
    groups.pollFirst();
  }
}

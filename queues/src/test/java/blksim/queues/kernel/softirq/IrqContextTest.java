package blksim.queues.kernel.softirq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.ReferenceCosts;
import blksim.queues.kernel.sched.PendingTicks;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One CPU's interrupt context (kernel/softirq.c's {@code irq_enter}/{@code irq_exit}, ksoftirqd,
 * kernel/time/hrtimer.c; docs/kernel.md on the tick and on BLOCK_SOFTIRQ): what entering it costs,
 * and the devices' work it runs, a hardware queue's group at a time.
 */
class IrqContextTest {
  private static final int CPU = 3;

  /** A timer or raised request of hardware queue {@code hctx}. */
  record Work(int hctx, String name) {}

  private final Charger charger = new Charger(ReferenceCosts.of(), "cpu3");
  private final IrqContext<Work> irq = new IrqContext<>(charger, CPU, Work::hctx);

  private long calls(String fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU).get(fn);
    return e == null ? 0 : e.calls();
  }

  private long ps(String fn) {
    return charger.ledger().steps(CPU).get(fn).ps();
  }

  @Test
  void aHardInterruptIsEnteredOnceAndTakesEveryTickThatWaitedWithItsWork() {
    long end = irq.enter(1_000, new PendingTicks.Ticks(3, 2, 1), List.of());
    Map<String, CostLedger.Entry> steps = charger.ledger().steps(CPU);
    assertEquals(1, calls("asm_sysvec_apic_timer_interrupt"), steps.toString());
    assertEquals(1, calls("hrtimer_interrupt"));
    assertEquals(3, calls("tick_sched_timer"), "each tick's own work");
    assertEquals(2, calls("run_rebalance_domains"), "SCHED_SOFTIRQ at irq_exit, per balance");
    assertEquals(1, calls("vmstat_update"), "the kworker the tick's timer woke");
    assertEquals(
        ps("vmstat_update"),
        charger.ledger().time(CPU, CpuTime.KWORKER),
        "the kworker is not the interrupt's time");
    assertEquals(1_000 + charger.ledger().totalPs(CPU), end, "its own work, before any group");
    assertFalse(irq.inSoftirq());
    assertEquals(CpuTime.IRQ, irq.what());
  }

  @Test
  void aTimerInterruptWithNoTickChargesNoTickWork() {
    irq.enter(0, PendingTicks.Ticks.NONE, List.of(new Work(0, "t1")));
    assertEquals(0, calls("tick_sched_timer"));
    assertEquals(0, calls("run_rebalance_domains"));
    assertEquals(1, calls("asm_sysvec_apic_timer_interrupt"));
  }

  @Test
  void expiredTimersEndAQueueAtATimeInTheOrderEachQueueFirstAppears() {
    irq.enter(
        0,
        PendingTicks.Ticks.NONE,
        List.of(new Work(2, "a"), new Work(0, "b"), new Work(2, "c"), new Work(1, "d")));
    assertEquals(List.of(new Work(2, "a"), new Work(2, "c")), irq.nextGroup());
    assertEquals(List.of(new Work(2, "a"), new Work(2, "c")), irq.nextGroup(), "until it ended");
    irq.groupEnded();
    irq.more(List.of(new Work(0, "e"))); // expired while the interrupt ran: a group of its own
    assertEquals(List.of(new Work(0, "b")), irq.nextGroup());
    irq.groupEnded();
    assertEquals(List.of(new Work(1, "d")), irq.nextGroup());
    irq.groupEnded();
    assertEquals(List.of(new Work(0, "e")), irq.nextGroup());
    irq.groupEnded();
    assertNull(irq.nextGroup(), "nothing left: the interrupt ends");
  }

  @Test
  void ksoftirqdIsWokenByTheRaiserAndSwitchedToOnlyWhenItPreempts() {
    long end = irq.softirq(0, List.of(new Work(0, "rq")), false);
    assertTrue(irq.inSoftirq());
    assertEquals(CpuTime.KSOFTIRQD, irq.what());
    assertEquals(1, calls("raise_softirq"));
    assertEquals(1, calls("try_to_wake_up"), "the raise wakes it");
    assertEquals(0, calls("__schedule"), "the task went to sleep: it paid for the switch");
    assertEquals(1, calls("run_ksoftirqd"));
    assertEquals(1, calls("blk_done_softirq"));
    assertEquals(
        ps("raise_softirq") + ps("try_to_wake_up"),
        charger.ledger().time(CPU, CpuTime.SUBMIT),
        "the raiser's part is the task's");
    assertEquals(charger.ledger().totalPs(CPU), end);

    long preempting = irq.softirq(end, List.of(new Work(0, "rq2")), true);
    assertEquals(1, calls("__schedule"), "it preempts the task: a switch to it");
    long back = irq.switchBack(preempting);
    assertEquals(2, calls("__schedule"), "and one back");
    assertTrue(back > preempting);
  }

  @Test
  void whatIsRaisedWhileItRunsTakesAnotherPassNotAnotherWake() {
    long t = irq.softirq(0, List.of(new Work(0, "rq1")), false);
    irq.groupEnded();
    long after = irq.moreSoftirq(t, List.of(new Work(0, "rq2")));
    assertEquals(2, calls("run_ksoftirqd"), "__do_softirq finds it pending again");
    assertEquals(1, calls("try_to_wake_up"), "it runs already: no wake");
    assertEquals(ps("run_ksoftirqd") + ps("blk_done_softirq"), 2 * (after - t));
    assertEquals(List.of(new Work(0, "rq2")), irq.nextGroup());
  }

  @Test
  void aHardInterruptAfterKsoftirqdIsAHardInterruptAgain() {
    irq.softirq(0, List.of(), false);
    irq.enter(10_000, PendingTicks.Ticks.NONE, List.of());
    assertFalse(irq.inSoftirq());
  }
}

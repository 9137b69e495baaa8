package blksim.queues.kernel.softirq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A CPU's ksoftirqd and its {@code blk_cpu_done} list (kernel/softirq.c, block/blk-mq.c 5.16;
 * docs/kernel.md on BLOCK_SOFTIRQ): runnable while requests wait, oldest first when it runs, and a
 * switch back only after a run that preempted the task.
 */
class KsoftirqdTest {
  private final Ksoftirqd<String> ksoftirqd = new Ksoftirqd<>();

  @Test
  void aRaiseShouldMakeItRunnableUntilItTakesTheWholeListOldestFirst() {
    assertFalse(ksoftirqd.pending(), "nothing raised: asleep");
    ksoftirqd.raised("rq1");
    ksoftirqd.raised("rq2");
    assertTrue(ksoftirqd.pending(), "ksoftirqd_running: the softirq waits for it");
    ksoftirqd.raised("rq3");
    assertEquals(List.of("rq1", "rq2", "rq3"), ksoftirqd.drain(), "llist_reverse_order");
    assertFalse(ksoftirqd.pending());
    assertEquals(List.of(), ksoftirqd.drain());
  }

  @Test
  void onlyARunThatPreemptedTheTaskShouldSwitchBackToIt() {
    ksoftirqd.runs(true); // the task was runnable: ksoftirqd preempted it where it scheduled
    assertTrue(ksoftirqd.switchBack());
    assertFalse(ksoftirqd.switchBack(), "one switch back a run");
    ksoftirqd.runs(false); // the task slept: it paid for the switch itself
    assertFalse(ksoftirqd.switchBack());
  }
}

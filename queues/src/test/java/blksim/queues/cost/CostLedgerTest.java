package blksim.queues.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CostLedgerTest {
  @Test
  void shouldKeepEachCpuAndStepApartAndReadThemBackByName() {
    CostLedger a = new CostLedger();
    a.charge(3, CpuTime.POLL, new CostStep(KernelFn.NULL_POLL, 14_000), 2);
    a.charge(3, CpuTime.LOCK_WAIT, new CostStep(Contention.LOCK_WAIT_POLL_LOCK, 500), 1);
    a.charge(3, CpuTime.SUBMIT, new CostStep(KernelFn.BIO_ALLOC_BIOSET, 9_000), 0);
    CostLedger b = new CostLedger();
    b.charge(3, CpuTime.POLL, new CostStep(KernelFn.NULL_POLL, 14_000), 1);
    b.charge(0, CpuTime.SUBMIT, new CostStep(KernelFn.IO_READ, 22_000), 1);
    a.merge(b);
    assertEquals(
        List.of("[lock wait] null_blk poll_lock", "bio_alloc_bioset", "null_poll"),
        List.copyOf(a.steps(3).keySet()),
        "sorted by name; a charge of no calls still shows, at zero");
    assertEquals(3, a.steps(3).get("null_poll").calls());
    assertEquals(42_000, a.steps(3).get("null_poll").ps());
    assertEquals(0, a.steps(3).get("bio_alloc_bioset").ps());
    assertEquals(42_500, a.totalPs(3));
    assertEquals(500, a.time(3, CpuTime.LOCK_WAIT));
    assertEquals(22_000, a.totalPs(0));
    assertEquals(0, a.totalPs(7), "a CPU never charged");
    assertEquals(0, a.steps(7).size());
  }

  @Test
  void everyIdShouldHaveItsOwnIndexAndOnlyTheMeantOnesShareANameInTheProfile() {
    java.util.Set<String> names = new java.util.HashSet<>();
    java.util.Set<String> shared = new java.util.TreeSet<>();
    for (int i = 0; i < CostId.count(); i++) {
      CostId id = CostId.of(i);
      assertEquals(i, id.index());
      if (!names.add(id.symbol())) {
        shared.add(id.symbol());
      }
    }
    // a nop's issue and a read's; the RCU calls of the queue enter's two sections and the exit's;
    // the two lists of bio_put; io_do_iopoll's passes that find something and those that do not
    assertEquals(
        java.util.Set.of(
            "__rcu_read_lock", "__rcu_read_unlock", "bio_put", "io_do_iopoll", "io_issue_sqe"),
        shared);
  }

  @Test
  void idsSharingANameShouldCountOnlyTheCallsOfThoseThatCostSomething() {
    CostLedger a = new CostLedger();
    a.charge(0, CpuTime.SUBMIT, new CostStep(KernelFn.RCU_READ_LOCK, 1_800), 2);
    a.charge(0, CpuTime.SUBMIT, new CostStep(KernelFn.RCU_READ_LOCK_NESTED, 0), 1);
    a.charge(0, CpuTime.SUBMIT, new CostStep(KernelFn.RCU_READ_UNLOCK_NESTED, 0), 3);
    assertEquals(2, a.steps(0).get("__rcu_read_lock").calls(), "the free nested one did not run");
    assertEquals(3_600, a.steps(0).get("__rcu_read_lock").ps());
    assertEquals(3, a.steps(0).get("__rcu_read_unlock").calls(), "all free: every call counts");
  }
}

package blksim.queues.block.fops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BioSetSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.ReferenceCosts;
import blksim.queues.fs.aio.KioCtx;
import blksim.queues.io_uring.CqRing;
import blksim.queues.io_uring.ForeignCompletions;
import blksim.queues.io_uring.IoKiocb;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.io_uring.IoRw;
import blksim.queues.io_uring.SqRing;
import blksim.queues.io_uring.Sqe;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bio_endio} of the bios one completion on a CPU ended (block/fops.c's {@code bi_end_io}s;
 * docs/model.md section 2, "Completion"): whose ring each is, who is woken, what goes back to its
 * bio_set. CPU 2 runs thread 0 (ring 2) and thread 1 (ring 7); ring 9 is another CPU's.
 */
class BioEndioTest {
  private static final int CPU = 2;
  private static final BioSetSettings BIOSET = new BioSetSettings(true, 512, 64, 4, 2, 32);

  private final Charger charger = new Charger(ReferenceCosts.of(), "cpu2");
  private final BioSet fsBioSet = new BioSet("fs_bio_set", BIOSET, 4);
  private final List<String> log = new ArrayList<>();
  private final ForeignCompletions foreign = new ForeignCompletions();

  /** What {@link #foreign} gathered, as each ring's CPU hears of it. */
  private List<String> elsewhere() {
    CostStep nothing = new CostStep(Contention.LINES_REMOTE_COMPLETION, 0);
    List<String> heard = new ArrayList<>();
    for (ForeignCompletions.ToRing r :
        foreign.tell(charger, CPU, CpuTime.IRQ, nothing, 0).rings()) {
      r.completions().forEach(done -> heard.add("ring " + r.ring() + ": " + done.res()));
    }
    return heard;
  }

  /** The CPU's threads: ring 2 in slot 0, ring 7 in slot 1; {@code sleeping} says who sleeps. */
  private final class Threads implements BioEndio.Threads {
    final int[] rings;
    final boolean[] sleeping;

    Threads(int... rings) {
      this.rings = rings;
      this.sleeping = new boolean[rings.length];
    }

    @Override
    public int count() {
      return rings.length;
    }

    @Override
    public int ringSlot(int ringOwner) {
      for (int slot = 0; slot < rings.length; slot++) {
        if (rings[slot] == ringOwner) {
          return slot;
        }
      }
      return -1;
    }

    @Override
    public int aioSlot(KioCtx ctx) {
      throw new AssertionError("no aio here");
    }

    @Override
    public int syncSlot(int owner) {
      return ringSlot(owner);
    }

    @Override
    public KernelFn[] kiComplete(int slot, IoKiocb req, int res) {
      log.add("ki_complete " + req.owner() + " on slot " + slot + ": " + res);
      return IoRw.END_IO_PATH;
    }

    @Override
    public void ended(int slot, IoKiocb req) {
      log.add("ended on slot " + slot);
    }

    @Override
    public boolean wakeIfSleeping(int slot) {
      boolean was = sleeping[slot];
      sleeping[slot] = false;
      if (was) {
        log.add("woke slot " + slot);
      }
      return was;
    }
  }

  private BioEndio end(Threads threads, CpuTime what) {
    return new BioEndio(charger, CPU, what, threads, foreign, true);
  }

  /** A 4 KiB read of ring {@code owner}, submitted, with its bio from a bio_set, ended. */
  private Bio ended(int owner) {
    SqRing sq = new SqRing(8);
    IoRingCtx ring = new IoRingCtx(sq, new CqRing(8), owner);
    sq.tryClaim(new Sqe(Sqe.IORING_OP_READ, 0, 0, 0, 4096, 0, 0));
    sq.publish();
    IoKiocb req = ring.submitSqe();
    Bio bio = fsBioSet.bioAllocBioset(CPU, false, 1).bio();
    bio.setOwner(req);
    bio.setRange(0, 4096);
    return bio;
  }

  private long calls(KernelFn fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU, id -> id.toString()).get(fn.name());
    return e == null ? 0 : e.calls();
  }

  @Test
  void eachBioRunsItsRingsKiCompleteAndItsTaskIsWokenOnceHoweverManyEnded() {
    Threads threads = new Threads(2, 7);
    threads.sleeping[1] = true;
    BioEndio end = end(threads, CpuTime.IRQ);
    long t = end.inIrq(1_000, List.of(ended(7), ended(2), ended(7), ended(7)));
    assertEquals(
        List.of(
            "ki_complete 7 on slot 1: 4096",
            "ended on slot 1",
            "ki_complete 2 on slot 0: 4096",
            "ended on slot 0",
            "ki_complete 7 on slot 1: 4096",
            "ended on slot 1",
            "ki_complete 7 on slot 1: 4096",
            "ended on slot 1"),
        log);
    assertEquals(0, calls(KernelFn.TRY_TO_WAKE_UP), "no task woken before wakeTasks");
    long after = end.wakeTasks(t);
    assertEquals("woke slot 1", log.get(log.size() - 1), "the sleeper, once; not the runner");
    assertEquals(1, calls(KernelFn.TRY_TO_WAKE_UP));
    assertTrue(after > t);
    assertEquals(
        charger.ledger().time(CPU, CpuTime.IRQ), after - 1_000, "all of it the interrupt's time");
    assertEquals(4, end.toPut().size(), "every bio of a bio_set goes back to it");
  }

  @Test
  void anotherCpusRingsRequestIsGatheredForItsCpuAndWakesNoTaskHere() {
    Threads threads = new Threads(2, 7);
    threads.sleeping[0] = true;
    threads.sleeping[1] = true;
    BioEndio end = end(threads, CpuTime.IRQ);
    long t = end.inIrq(0, List.of(ended(9)));
    end.wakeTasks(t);
    assertEquals(List.of("ring 9: 4096"), elsewhere(), "io_complete_rw_iopoll wrote it there");
    assertEquals(List.of(), log, "nothing of this CPU's rings ran, and none woke");
    for (KernelFn fn : IoRw.endPath(true)) {
      assertEquals(1, calls(fn), fn + ": its bi_end_io ran here");
    }
    assertEquals(1, end.toPut().size(), "its bio goes back to its bio_set from here");
  }

  @Test
  void aCpusOnlyThreadIsLookedAtWhateverEnded() {
    Threads threads = new Threads(2);
    threads.sleeping[0] = true;
    BioEndio end = end(threads, CpuTime.IRQ);
    end.wakeTasks(end.inIrq(0, List.of(ended(9))));
    assertEquals(List.of("woke slot 0"), log, "the model's simplification: it wakes to nothing");
  }

  @Test
  void aSyncReadsBioOnTheStackEndsItsWaitWakesItsTaskAndIsNotPut() {
    Threads threads = new Threads(2, 7);
    threads.sleeping[1] = true;
    Bio onStack = Bio.onStack(1);
    onStack.setOwner(new BlkdevDirectIoSimple.Waiter(7));
    BioEndio end = end(threads, CpuTime.KSOFTIRQD);
    end.wakeTasks(end.inIrq(0, List.of(onStack)));
    assertNull(onStack.owner(), "blkdev_bio_end_io_simple: bi_private = NULL");
    assertEquals(List.of("woke slot 1"), log);
    assertEquals(List.of(), end.toPut(), "it lives on its task's stack");
    assertTrue(charger.ledger().time(CPU, CpuTime.KSOFTIRQD) > 0, "charged to ksoftirqd");
  }

  @Test
  void inQueueRqASiblingsRequestWakesItAtOnceAndTheSubmittersOwnIsDone() {
    Threads threads = new Threads(2, 7);
    threads.sleeping[1] = true;
    List<Integer> done = new ArrayList<>();
    BioEndio end = end(threads, CpuTime.SUBMIT);
    end.inSubmit(0, 0, List.of(ended(7), ended(2), ended(9), ended(7)), r -> done.add(r.owner()));
    assertEquals(
        List.of(
            "ki_complete 7 on slot 1: 4096",
            "ended on slot 1",
            "woke slot 1",
            "ki_complete 2 on slot 0: 4096",
            "ki_complete 7 on slot 1: 4096",
            "ended on slot 1"),
        log,
        "the sibling's task_work wakes it at its first; the submitter's own are its to reap");
    assertEquals(List.of(2), done);
    assertEquals(List.of("ring 9: 4096"), elsewhere());
    assertEquals(1, calls(KernelFn.TRY_TO_WAKE_UP));
    assertEquals(List.of(), end.toPut(), "queue_rq's caller puts them");
  }

  @Test
  void dmsetupsResumeEndsEachRequestOnItsRingAndEveryRingHearsAsAnotherCpusWould() {
    CostStep remote = new CostStep(Contention.LINES_REMOTE_COMPLETION, 300);
    ForeignCompletions.Told told =
        BioEndio.inSubmitWithoutRing(
            charger, CPU, remote, 1_000, List.of(ended(7), ended(2), ended(7)));
    assertEquals(
        List.of(2, 7), told.rings().stream().map(ForeignCompletions.ToRing::ring).toList());
    assertEquals(2, told.rings().get(1).completions().size(), "ring 7's two, in order");
    for (KernelFn fn : IoRw.END_IO_PATH) {
      assertEquals(3, calls(fn), fn + ": io_complete_rw_iopoll's bi_end_io, per bio");
    }
    assertTrue(
        told.rings().get(0).atPs() > 1_000 + 300, "the bios' ends first, then ring 2's line set");
    assertEquals(
        told.rings().get(0).atPs() + 2 * 300, told.rings().get(1).atPs(), "ring 7 after two more");
    assertEquals(told.rings().get(1).atPs(), told.atPs(), "dmsetup goes on after the last");
    assertEquals(List.of(), log, "no ring's ki_complete ran here: each ring's task reaps its own");
  }

  @Test
  void anInterruptTellsTheOtherCpusBeforeItWakesItsOwnTasksThenPuts() {
    Threads threads = new Threads(2, 7);
    threads.sleeping[0] = true;
    CostStep remote = new CostStep(Contention.LINES_REMOTE_COMPLETION, 5_000);
    BioEndio end = end(threads, CpuTime.IRQ);
    Bio theirs = ended(9);
    Bio mine = ended(2);
    BioEndio.IrqEnd done = end.irqEnded(1_000, List.of(theirs, mine), remote);
    long endIo = charger.ledger().time(CPU, CpuTime.IRQ) - 5_000 - wakePs();
    assertEquals(1, done.told().rings().size());
    assertEquals(1_000 + endIo + 5_000, done.told().rings().get(0).atPs(), "ring 9 hears first");
    assertEquals(done.told().atPs() + wakePs(), done.atPs(), "then slot 0 is woken");
    assertEquals(List.of("ki_complete 2 on slot 0: 4096", "ended on slot 0", "woke slot 0"), log);
    assertEquals(List.of(theirs, mine), done.put(), "both back to their bio_set");
  }

  /** What waking one task costs here. */
  private long wakePs() {
    CostLedger.Entry e =
        charger.ledger().steps(CPU, id -> id.toString()).get(KernelFn.TRY_TO_WAKE_UP.name());
    return e == null ? 0 : e.ps();
  }
}

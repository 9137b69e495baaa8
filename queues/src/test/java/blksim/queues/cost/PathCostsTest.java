package blksim.queues.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;

import blksim.config.BlksimSettings;
import blksim.config.CpuProfile;
import blksim.config.KernelSettings;
import blksim.config.Patch;
import blksim.config.Scenario;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What each variant of the path costs on the reference box (4 GHz: an L2 load 3.5 ns, a call 1.25
 * ns, an atomic 4.5 ns), derived from the seeds' diffs.
 */
class PathCostsTest {
  private static final CpuProfile REF = BlksimSettings.defaults().profile();
  private static final PathCosts.Knobs REGISTERED = new PathCosts.Knobs(true, true, true);

  /** Row 19's 40 ns over the 217.5 ns of rows 3 to 18's steps. */
  static final double TAIL = 1 + 40 / 217.5;

  private static double ns(
      Set<Patch> patches, boolean iostats, PathCosts.Knobs knobs, KernelFn fn) {
    KernelSettings k = new KernelSettings("", patches, iostats);
    return PathCosts.of(REF, k, knobs).step(fn).ps() / 1000.0;
  }

  private static double ns(Set<Patch> patches, KernelFn fn) {
    return ns(patches, false, REGISTERED, fn);
  }

  @Test
  void bdevLookupsShouldFollowEachVariantOfSeed000() {
    Set<Patch> none = Set.of();
    Set<Patch> p1 = EnumSet.of(Patch.BDEV_CACHE_IN_FILE);
    Set<Patch> p2 = EnumSet.of(Patch.BDEV_INODE_INLINE);
    Set<Patch> p12 = EnumSet.of(Patch.BDEV_CACHE_IN_FILE, Patch.BDEV_INODE_INLINE);
    // blkdev_read_iter: 1.25 of its own (with its share of the tail), plus bdev_file_inode() and
    // f_mapping, host
    double readIter = 1.25 * TAIL;
    assertEquals(readIter + 1.25 + 7.0, ns(none, KernelFn.BLKDEV_READ_ITER), 1e-3);
    assertEquals(readIter + 7.0, ns(p1, KernelFn.BLKDEV_READ_ITER), 1e-3, "private_data, bd_inode");
    assertEquals(readIter + 3.5, ns(p12, KernelFn.BLKDEV_READ_ITER), 1e-3, "private_data only");
    // __blkdev_direct_IO: 2.0 of its own, plus bdev_file_inode(), I_BDEV() and two loads
    double dio = 2.0 * TAIL;
    assertEquals(dio + 2.5 + 7.0, ns(none, KernelFn.BLKDEV_DIRECT_IO), 1e-3);
    assertEquals(dio + 3.5, ns(p1, KernelFn.BLKDEV_DIRECT_IO), 1e-3);
    assertEquals(dio + 1.25 + 7.0, ns(p2, KernelFn.BLKDEV_DIRECT_IO), 1e-3, "I_BDEV inline");
    // blkdev_iopoll, per poll call
    assertEquals(1.25 + 7.0, ns(none, KernelFn.BLKDEV_IOPOLL), 1e-9);
    assertEquals(3.5, ns(p1, KernelFn.BLKDEV_IOPOLL), 1e-9);
    assertEquals(7.0, ns(p2, KernelFn.BLKDEV_IOPOLL), 1e-9);
  }

  @Test
  void endRequestFastPathShouldSkipTheStatsCallsOnlyWithoutIostats() {
    Set<Patch> p3 = EnumSet.of(Patch.END_REQUEST_FAST_PATH);
    assertEquals(3.5, ns(Set.of(), KernelFn.END_REQUEST_STATS), 1e-9, "q->elevator");
    assertEquals(
        1.25, ns(Set.of(), KernelFn.BLK_ACCOUNT_IO_DONE), 1e-9, "a call that returns at once");
    assertEquals(0, ns(p3, KernelFn.END_REQUEST_STATS));
    assertEquals(0, ns(p3, KernelFn.BLK_ACCOUNT_IO_DONE));
    for (Set<Patch> p : java.util.List.of(Set.<Patch>of(), p3)) {
      assertEquals(
          3.5, ns(p, true, REGISTERED, KernelFn.END_REQUEST_STATS), 1e-9, "free with iostats on");
      assertEquals(1.25 + 3.5 + 1.0, ns(p, true, REGISTERED, KernelFn.BLK_ACCOUNT_IO_DONE), 1e-9);
      assertEquals(3.5 + 1.0, ns(p, true, REGISTERED, KernelFn.BLK_ACCOUNT_IO_START), 1e-9);
      assertEquals(15.0, ns(p, true, REGISTERED, KernelFn.KTIME_GET_NS), 1e-9);
    }
    assertEquals(0, ns(Set.of(), KernelFn.KTIME_GET_NS), "no time stamps without iostats");
  }

  @Test
  void bioInitShouldBeStoresOrRepStos() {
    assertEquals(20 / 4.0, ns(Set.of(), KernelFn.BIO_INIT), 1e-9, "20 stores, 1 cycle each");
    assertEquals(
        (15 + 16 + 4) / 4.0, ns(EnumSet.of(Patch.BIO_INIT_COMPOUND), KernelFn.BIO_INIT), 1e-9);
  }

  @Test
  void unregisteredFilesBuffersAndRingShouldCostAtomicsLoadsAndFdget() {
    PathCosts.Knobs plain = new PathCosts.Knobs(false, false, false);
    assertEquals(4.5, ns(Set.of(), false, plain, KernelFn.FGET), 1e-9, "an atomic");
    assertEquals(4.5, ns(Set.of(), false, plain, KernelFn.FPUT), 1e-9, "and its drop");
    // one page: the walk (4 L2), its pin (an atomic and a per-CPU add), its dirty bit (L1)
    assertEquals(
        4 * 3.5 + 4.5 + 1 + 1.25, ns(Set.of(), false, plain, KernelFn.GET_USER_PAGES_FAST), 1e-9);
    // a call, then its dirty bit again (L1) and its unpin (an atomic and a per-CPU add)
    assertEquals(
        1.25 + 4.5 + 1 + 1.25, ns(Set.of(), false, plain, KernelFn.BIO_RELEASE_PAGES), 1e-9);
    assertEquals(18.0, ns(Set.of(), false, plain, KernelFn.FDGET_FDPUT), 1e-9);
    assertEquals(0, ns(Set.of(), KernelFn.FGET));
    assertEquals(0, ns(Set.of(), KernelFn.FPUT));
    assertEquals(0, ns(Set.of(), KernelFn.FDGET_FDPUT));
  }

  @Test
  void unregisteredBuffersShouldCostByThePagesTheyPin() {
    // -B0 -b65536: 16 pages, one walk; each further PTE is the next in its table (L1)
    PathCosts.Knobs big = new PathCosts.Knobs(true, true, false, 16, true);
    assertEquals(
        4 * 3.5 + 16 * (4.5 + 1) + 15 * 1.25 + 16 * 1.25,
        ns(Set.of(), false, big, KernelFn.GET_USER_PAGES_FAST),
        1e-9);
    assertEquals(
        1.25 + 16 * (4.5 + 1 + 1.25), ns(Set.of(), false, big, KernelFn.BIO_RELEASE_PAGES), 1e-9);
    // more than BIO_INLINE_VECS: a bvec array from a biovec slab, and back
    PathCosts.Knobs small = new PathCosts.Knobs(true, true, false, 1, false);
    double slab = ns(Set.of(), false, small, KernelFn.KMEM_CACHE_ALLOC);
    assertEquals(
        ns(Set.of(), false, small, KernelFn.BIO_ALLOC_BIOSET) + slab,
        ns(Set.of(), false, big, KernelFn.BIO_ALLOC_BIOSET),
        1e-9);
    assertEquals(
        ns(Set.of(), false, small, KernelFn.BIO_FREE) + slab,
        ns(Set.of(), false, big, KernelFn.BIO_FREE),
        1e-9);
    assertEquals(0, ns(Set.of(), KernelFn.GET_USER_PAGES_FAST), "-B1 pins nothing");
  }

  @Test
  void scaleShouldMultiplyTheShapeButNotWhatFactsDerive() {
    CpuProfile twice =
        new Scenario()
            .hocon(
                "blksim.profiles.twice { extends = begunkov-2021, scale = 2 }\nblksim.cpu.profile = twice",
                "test")
            .settings()
            .profile();
    PathCosts c = PathCosts.of(twice, new KernelSettings("", Set.of(), false), REGISTERED);
    double row4 = 0;
    for (KernelFn fn :
        new KernelFn[] {
          KernelFn.IO_ISSUE_SQE, KernelFn.IO_PREP_RW, KernelFn.IO_READ, KernelFn.IO_IMPORT_IOVEC
        }) {
      row4 += c.step(fn).ps() / 1000.0;
    }
    assertEquals(44.0 * TAIL, row4, 1e-2, "row 4, scaled, with its share of the tail");
    assertEquals(5.0, c.step(KernelFn.BIO_INIT).ps() / 1000.0, 1e-9);
    assertEquals(45.0, c.step(KernelFn.SYSCALL).ps() / 1000.0, 1e-9);
  }

  @Test
  void the516BlockChangesShouldEachTakeOffWhatTheirCommitRemoves() {
    // call 1.25, L1 1.25, store 0.25 ns on the reference box
    double end = ns(Set.of(), KernelFn.BLK_MQ_END_REQUEST);
    double init = ns(Set.of(), KernelFn.BLK_MQ_RQ_CTX_INIT);
    double free = ns(Set.of(), KernelFn.BLK_MQ_FREE_REQUEST);
    double poll = ns(Set.of(), KernelFn.IO_DO_IOPOLL);
    assertEquals(
        end - 1.25, ns(EnumSet.of(Patch.BIO_ADVANCE_SKIP), KernelFn.BLK_MQ_END_REQUEST), 1e-3);
    assertEquals(
        end - 3 * 1.25,
        ns(
            EnumSet.of(
                Patch.BIO_ADVANCE_SKIP, Patch.UPDATE_REQUEST_IN_BLK_MQ, Patch.STATUS_ERRNO_SKIP),
            KernelFn.BLK_MQ_END_REQUEST),
        1e-3,
        "three calls fewer per completion");
    assertEquals(init - 1.25, ns(EnumSet.of(Patch.RQF_ELV), KernelFn.BLK_MQ_RQ_CTX_INIT), 1e-3);
    assertEquals(free - 1.25, ns(EnumSet.of(Patch.RQF_ELV), KernelFn.BLK_MQ_FREE_REQUEST), 1e-3);
    assertEquals(
        init - (3 * 0.25 + 2 * 1.25),
        ns(EnumSet.of(Patch.RQ_CTX_INIT_NO_ELV), KernelFn.BLK_MQ_RQ_CTX_INIT),
        1e-3,
        "two node inits (three stores) and two reloads");
    assertEquals(
        free - 1.5, ns(EnumSet.of(Patch.REMOVE_CTX_COUNTERS), KernelFn.BLK_MQ_FREE_REQUEST), 1e-3);
    assertEquals(
        poll - 3 * 1.5, ns(EnumSet.of(Patch.REMOVE_HCTX_COUNTERS), KernelFn.IO_DO_IOPOLL), 1e-3);
    assertEquals(
        ns(EnumSet.of(Patch.BIO_ADVANCE_SKIP), KernelFn.BLK_MQ_END_REQUEST),
        ns(EnumSet.of(Patch.BIO_ADVANCE_SKIP), KernelFn.BLK_MQ_END_REQUEST_BATCH),
        1e-3,
        "the batch's per-request part follows");
    // bdev-cached-queue: one load less at each bdev_get_queue
    for (KernelFn fn :
        new KernelFn[] {
          KernelFn.SUBMIT_BIO_NOACCT, KernelFn.BIO_QUEUE_ENTER, KernelFn.BLK_MQ_SUBMIT_BIO
        }) {
      assertEquals(
          ns(Set.of(), fn) - 1.25, ns(EnumSet.of(Patch.BDEV_CACHED_QUEUE), fn), 1e-3, fn.symbol());
    }
    // queue-enter-rcu-once: percpu_ref_tryget_live's own section is gone
    Set<Patch> once = EnumSet.of(Patch.QUEUE_ENTER_RCU_ONCE);
    assertEquals(1.81, ns(Set.of(), KernelFn.RCU_READ_LOCK_NESTED), 1e-3);
    assertEquals(1.60, ns(Set.of(), KernelFn.RCU_READ_UNLOCK_NESTED), 1e-3);
    assertEquals(0, ns(once, KernelFn.RCU_READ_LOCK_NESTED));
    assertEquals(0, ns(once, KernelFn.RCU_READ_UNLOCK_NESTED));
    assertEquals(1.81, ns(once, KernelFn.RCU_READ_LOCK), 1e-3, "blk_try_enter_queue's stays");
  }

  @Test
  void theRsrcNodesReferencesShouldCostTheirRcuSectionsAndGoWithoutRegisteredFilesOrBuffers() {
    // percpu_ref_get or _put: the profile's RCU section (1.81 + 1.60), shown as its two functions,
    // around a load (1.25) and a per-CPU add (1) left in the row
    double section = 1.81 + 1.60;
    double ref = section + 1.25 + 1;
    assertEquals(1.81, ns(Set.of(), KernelFn.RCU_READ_LOCK_RSRC), 1e-3);
    assertEquals(1.60, ns(Set.of(), KernelFn.RCU_READ_UNLOCK_RSRC), 1e-3);
    double submit = ns(Set.of(), KernelFn.IO_SUBMIT_SQES) + section;
    double flush = ns(Set.of(), KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS) + section;
    assertEquals(14 * TAIL, submit, 1e-3, "row 3 keeps its sum");
    Set<Patch> cache = EnumSet.of(Patch.RSRC_REF_CACHE);
    assertEquals(0, ns(cache, KernelFn.RCU_READ_LOCK_RSRC));
    assertEquals(0, ns(cache, KernelFn.RCU_READ_UNLOCK_RSRC));
    assertEquals(
        submit - (ref - (1.25 + 0.25) - ref / 100),
        ns(cache, KernelFn.IO_SUBMIT_SQES),
        1e-3,
        "the get: a decrement and its test, a percpu_ref_get_many of 100 at each refill");
    assertEquals(
        flush - (ref - (2 * 1.25 + 0.25)),
        ns(cache, KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS),
        1e-3,
        "the put: a compare with ctx->rsrc_node and an increment");
    assertEquals(
        ns(cache, KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS),
        ns(cache, KernelFn.IO_IOPOLL_COMPLETE),
        1e-3,
        "an IOPOLL ring's completions do the same");
    Set<Patch> ctx = EnumSet.of(Patch.RSRC_NODE_CTX);
    assertEquals(
        submit - section - 1.25, ns(ctx, KernelFn.IO_SUBMIT_SQES), 1e-3, "io_file_get_fixed's");
    PathCosts.Knobs buffersOnly = new PathCosts.Knobs(true, false, true);
    assertEquals(
        ns(Set.of(), false, buffersOnly, KernelFn.IO_PREP_RW) - 1.25,
        ns(ctx, false, buffersOnly, KernelFn.IO_PREP_RW),
        1e-3,
        "io_prep_rw's, without a registered file");
    PathCosts.Knobs neither = new PathCosts.Knobs(true, false, false);
    for (Set<Patch> patches : java.util.List.of(Set.<Patch>of(), cache, ctx)) {
      assertEquals(
          submit - ref, ns(patches, false, neither, KernelFn.IO_SUBMIT_SQES), 1e-3, "no get");
      assertEquals(
          flush - ref,
          ns(patches, false, neither, KernelFn.IO_SUBMIT_FLUSH_COMPLETIONS),
          1e-3,
          "no put");
      assertEquals(0, ns(patches, false, neither, KernelFn.RCU_READ_LOCK_RSRC));
    }
  }

  @Test
  void theMeasured516ChangesShouldTakeOffWhatTheirAuthorMeasured() {
    double dio = ns(Set.of(), KernelFn.BLKDEV_DIRECT_IO);
    assertEquals(
        dio - (1e9 / 7.65e6 - 1e9 / 7.75e6),
        ns(EnumSet.of(Patch.BLKDEV_DIO_FLAGS), KernelFn.BLKDEV_DIRECT_IO),
        1e-3,
        "7650K to 7750K IOPS");
    double init = ns(Set.of(), KernelFn.BLK_MQ_RQ_CTX_INIT);
    double start = ns(Set.of(), KernelFn.BLK_MQ_START_REQUEST);
    Set<Patch> layout = EnumSet.of(Patch.RQ_LAYOUT);
    double initAfter = ns(layout, KernelFn.BLK_MQ_RQ_CTX_INIT);
    double startAfter = ns(layout, KernelFn.BLK_MQ_START_REQUEST);
    assertEquals(
        1e9 / 7.75e6 - 1e9 / 7.90e6,
        init + start - initAfter - startAfter,
        1e-3,
        "7750K to 7900K IOPS, off the two functions that write the request");
    assertEquals(init / start, initAfter / startAfter, 1e-3, "in proportion");
  }
}

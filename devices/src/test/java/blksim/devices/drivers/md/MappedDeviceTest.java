package blksim.devices.drivers.md;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.DmTable;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A bio-based dm-linear device's rules (drivers/md/dm.c, 5.18-5.19; docs/kernel.md sections 4.2 and
 * 4.3), held on the model alone: a CPU's call goes in, and each crossing into io_bs or a device
 * below comes back as a {@link DmNext} that the test answers as that component would.
 */
class MappedDeviceTest {
  private static final int CPU = 1;
  private static final CpuTime WHAT = CpuTime.SUBMIT;
  private static final String ONE = "0 4096 linear /dev/nullb0 0";
  private static final String TWO = "0 2048 linear /dev/nullb0 8192;2048 2048 linear /dev/nullb1 0";

  private final BioSet ioBs = new BioSet("io_bs", BlksimSettings.defaults().bioset(), 2);
  private final BioSet upper = new BioSet("upper", BlksimSettings.defaults().bioset(), 2);

  private static MappedDevice dm(String table, boolean cloneCache) {
    PathCosts costs =
        PathCosts.of(
            BlksimSettings.defaults().profile(),
            BlksimSettings.defaults().kernel(),
            new PathCosts.Knobs(true, true, true));
    // hardware queue 1 of each device polls, 0 does not
    return new MappedDevice(
        "dm-0",
        DmTable.parse("dm-0", table),
        true,
        cloneCache,
        (device, cpu, polled) -> polled ? 1 : 0,
        new Charger(costs, "dm-0"));
  }

  private static MappedDevice dm(String table) {
    return dm(table, false);
  }

  private Bio orig(long sector) {
    Bio b = upper.bioAllocBioset(CPU, false, 0).bio();
    b.setRange(sector, 4096);
    return b;
  }

  private Bio polled(long sector) {
    Bio b = orig(sector);
    b.setPolled();
    return b;
  }

  /** io_bs's answer to {@code alloc}: a fresh clone for each original. */
  private List<Bio> clones(DmNext.AllocClones alloc) {
    List<Bio> all = new ArrayList<>();
    for (int i = 0; i < alloc.count(); i++) {
      all.add(ioBs.bioAllocBioset(alloc.cpu(), alloc.allocCache(), alloc.nrVecs()).bio());
    }
    return all;
  }

  /** dm_submit_bio of {@code origs} as far as the first submission below. */
  private DmNext.SubmitClones submit(MappedDevice md, List<Bio> origs) {
    DmNext.AllocClones alloc = (DmNext.AllocClones) md.dmSubmitBio(CPU, WHAT, 0, origs);
    return (DmNext.SubmitClones) md.dmSplitAndProcessBio(alloc, 0, clones(alloc));
  }

  private static boolean audited(MappedDevice md) {
    Books books = new Books();
    md.audit(books);
    return books.balanced();
  }

  @Test
  void linearShouldMapEachBioThroughTheTargetHoldingItsFirstSector() {
    MappedDevice md = dm(TWO);
    Bio low = orig(16);
    Bio high = orig(2048 + 24);
    DmIo a = md.allocIoAndMap(low, ioBs.bioAllocBioset(CPU, false, 0).bio());
    DmIo b = md.allocIoAndMap(high, ioBs.bioAllocBioset(CPU, false, 0).bio());
    assertEquals("/dev/nullb0", a.target().device());
    assertEquals(8192 + 16, a.clone().sector(), "lc->start + (sector - ti->begin)");
    assertEquals("/dev/nullb1", b.target().device());
    assertEquals(24, b.clone().sector());
    assertEquals(4096, b.clone().sizeBytes(), "the clone has the original's size");
    assertEquals(16, low.sector(), "the original keeps its own sector");
  }

  @Test
  void aBioIsNotSplitAtATargetBoundaryTheTableChecksRefuseSuchTables() {
    // dm_split_and_process_bio would clone the part past ti->begin + ti->len from md->bs; the
    // model has no md->bs, and tables with a boundary inside a read are refused before the run.
    MappedDevice md = dm(TWO);
    Bio across = orig(2040);
    DmIo io = md.allocIoAndMap(across, ioBs.bioAllocBioset(CPU, false, 0).bio());
    assertEquals("/dev/nullb0", io.target().device(), "dm_table_find_target of the first sector");
    assertEquals(4096, io.clone().sizeBytes(), "one clone of the whole bio");
    assertEquals(1, md.allocated(), "one dm_io, one clone");
  }

  @Test
  void aSectorPastTheTablesEndShouldBreakTheModel() {
    MappedDevice md = dm(ONE);
    Bio past = orig(4096);
    Bio clone = ioBs.bioAllocBioset(CPU, false, 0).bio();
    assertThrows(InvariantBroken.class, () -> md.allocIoAndMap(past, clone));
  }

  @Test
  void ioCountShouldStartAtTwoOneForSubmissionOneForCompletion() {
    MappedDevice md = dm(ONE);
    DmIo io = md.allocIoAndMap(orig(0), ioBs.bioAllocBioset(CPU, false, 0).bio());
    assertEquals(2, io.ioCount());
    assertFalse(md.submitted(io), "dm_io_dec_pending of the submission's reference");
    assertEquals(1, io.ioCount());
    assertTrue(md.cloneEndio(io.clone()), "clone_endio drops the last");
    assertEquals(0, io.ioCount());
    assertThrows(IllegalStateException.class, () -> md.cloneEndio(io.clone()), "put twice");
  }

  @Test
  void theOriginalShouldEndOnlyOnceItsCloneHasEnded() {
    MappedDevice md = dm(ONE);
    Bio o = orig(0);
    DmNext.SubmitClones s = submit(md, List.of(o));
    Bio clone = s.group().clones().get(0);
    DmNext next = md.clonesSubmitted(s, 100, List.of(), List.of());
    DmNext.Return r = assertInstanceOf(DmNext.Return.class, next, "submitted, still out below");
    assertEquals(List.of(), r.ended());
    assertEquals(1, r.queued());
    // The clone ends later, by interrupt: clone_endio completes the original, free_io puts it.
    DmNext.PutClones put =
        (DmNext.PutClones) md.cloneEndioInInterrupt(0, CpuTime.IRQ, 200, List.of(clone));
    assertEquals(List.of(clone), put.clones());
    DmNext.Return done = md.clonesPut(put, 300);
    assertEquals(DmCall.Kind.IRQ, done.kind());
    assertEquals(List.of(o), done.ended());
    assertEquals(300, done.atPs(), "the call returns when io_bs has the clones back");
    assertTrue(audited(md));
  }

  @Test
  void aClonesErrorShouldEndTheOriginalWithIt() {
    MappedDevice md = dm(ONE);
    Bio o = orig(0);
    DmNext.SubmitClones s = submit(md, List.of(o));
    Bio clone = s.group().clones().get(0);
    clone.setStatus(-5);
    DmNext.PutClones put = (DmNext.PutClones) md.clonesSubmitted(s, 10, List.of(clone), List.of());
    DmNext.Return r = md.clonesPut(put, 20);
    assertEquals(List.of(o), r.ended(), "bio_endio(orig) with io->status");
    assertEquals(-5, o.status());
    assertEquals(List.of(), r.failed());
  }

  @Test
  void aCloneTurnedAwayWithEagainShouldFailItsUnpolledOriginalWithEagain() {
    MappedDevice md = dm(ONE);
    Bio o = orig(0);
    DmNext.SubmitClones s = submit(md, List.of(o));
    Bio clone = s.group().clones().get(0);
    clone.setStatus(-MappedDevice.EAGAIN);
    DmNext.PutClones put = (DmNext.PutClones) md.clonesSubmitted(s, 10, List.of(), List.of(clone));
    DmNext.Return r = md.clonesPut(put, 20);
    assertEquals(List.of(o), r.failed());
    assertEquals(0, r.queued(), "the one original was turned away");
    assertEquals(-MappedDevice.EAGAIN, o.status());
    assertEquals(0L, md.requeues().get(MappedDevice.Requeue.POLLED_EAGAIN), "not requeued");
  }

  @Test
  void aPolledIoShouldKeepItsSubmissionReferenceAndHangOnItsOriginal() {
    MappedDevice md = dm(ONE);
    Bio o = polled(0);
    DmIo io = md.allocIoAndMap(o, ioBs.bioAllocBioset(CPU, false, 0).bio());
    assertTrue(io.clone().polled(), "the clone is polled as its original");
    assertFalse(md.submitted(io));
    assertEquals(2, io.ioCount(), "dm_queue_poll_io keeps the reference");
    assertSame(io, md.pollIo(o));
    assertEquals(0, o.cookie(), "bi_cookie is set: bio_poll calls dm_poll_bio");
    assertFalse(md.cloneEndio(io.clone()), "the clone's end leaves the polling side's reference");
    assertTrue(md.pollDone(io), "dm_poll_bio finds it done and releases it");
    assertNull(md.pollIo(o));
  }

  @Test
  void dmPollBioShouldPollTheCloneBelowOnlyWhileItIsOutWithACookie() {
    MappedDevice md = dm(ONE);
    Bio o = polled(0);
    DmNext.SubmitClones s = submit(md, List.of(o));
    Bio clone = s.group().clones().get(0);
    assertInstanceOf(DmNext.Return.class, md.clonesSubmitted(s, 10, List.of(), List.of()));

    // not yet given a cookie below: bio_poll of the clone would return 0
    DmNext.Return none = (DmNext.Return) md.dmPollBio(CPU, CpuTime.POLL, 20, o);
    assertEquals(List.of(), none.ended());

    clone.setCookie(1);
    DmNext.PollClone p = (DmNext.PollClone) md.dmPollBio(CPU, CpuTime.POLL, 30, o);
    assertSame(clone, p.clone());
    assertEquals(1, p.cookie());
    assertEquals("/dev/nullb0", p.device());
    // the poll below finds nothing: the io stays on the list
    assertInstanceOf(DmNext.Return.class, md.clonePolled(p, 40, List.of()));
    assertSame(p.io(), md.pollIo(o));

    // the poll below ends the clone: io_count is down to the polling side's, and the io completes
    p = (DmNext.PollClone) md.dmPollBio(CPU, CpuTime.POLL, 50, o);
    DmNext.PutClones put = (DmNext.PutClones) md.clonePolled(p, 60, List.of(clone));
    DmNext.Return r = md.clonesPut(put, 70);
    assertEquals(DmCall.Kind.POLL, r.kind());
    assertEquals(List.of(o), r.ended());
    assertTrue(audited(md));
  }

  @Test
  void aPolledCloneEndingWithEagainShouldRequeueItsOriginalUnpolledForMdWq() {
    MappedDevice md = dm(ONE);
    Bio o = polled(0);
    DmNext.SubmitClones s = submit(md, List.of(o));
    Bio clone = s.group().clones().get(0);
    clone.setStatus(-MappedDevice.EAGAIN);
    assertInstanceOf(DmNext.Return.class, md.clonesSubmitted(s, 10, List.of(), List.of(clone)));

    // dm_poll_bio releases the io: dm_io_complete requeues the original, and md->wq's worker,
    // woken on this CPU, submits it again at once
    DmNext.AllocClones again = (DmNext.AllocClones) md.dmPollBio(CPU, CpuTime.POLL, 20, o);
    assertFalse(o.polled(), "bio_clear_polled");
    assertFalse(o.percpuCache());
    assertEquals(Bio.BLK_QC_T_NONE, o.cookie());
    assertEquals(1L, md.requeues().get(MappedDevice.Requeue.POLLED_EAGAIN));
    assertEquals(List.of(o), again.call().origs());
    assertTrue(again.call().resubmitting());
    assertEquals(List.of(clone), again.call().toPut(), "the failed io's clone waits to be put");
    assertEquals(1, md.resubmitted());
    assertEquals(0, o.status(), "resubmitted afresh");

    DmNext.SubmitClones below =
        (DmNext.SubmitClones) md.dmSplitAndProcessBio(again, 30, clones(again));
    Bio clone2 = below.group().clones().get(0);
    assertFalse(clone2.polled(), "submitted again, not polled");
    assertEquals(0, below.group().hctx(), "to a queue that does not poll");
    DmNext.PutClones put =
        (DmNext.PutClones) md.clonesSubmitted(below, 40, List.of(clone2), List.of());
    assertEquals(List.of(clone, clone2), put.clones());
    DmNext.Return r = md.clonesPut(put, 50);
    assertEquals(List.of(o), r.ended(), "the poll call hands the original back as ended");
    assertTrue(audited(md));
  }

  @Test
  void dmWqWorkShouldSubmitEachDeferredBioOnItsOwnWithoutAPlug() {
    MappedDevice md = dm(ONE);
    List<Bio> origs = List.of(polled(0), polled(8));
    List<DmIo> ios = new ArrayList<>();
    for (Bio o : origs) {
      DmIo io = md.allocIoAndMap(o, ioBs.bioAllocBioset(CPU, false, 0).bio());
      md.submitted(io);
      io.clone().setStatus(-MappedDevice.EAGAIN);
      md.cloneEndio(io.clone());
      md.pollDone(io);
      assertEquals(MappedDevice.Completion.REQUEUED, md.complete(io, CPU));
      ios.add(io);
    }
    assertTrue(md.hasDeferred(CPU));
    assertFalse(md.hasDeferred(0), "md->wq's work runs where it was queued");

    // a poll of a requeued original finds nothing to poll; md->wq's worker runs on this CPU
    DmNext.AllocClones again =
        (DmNext.AllocClones) md.dmPollBio(CPU, CpuTime.POLL, 0, origs.get(0));
    assertEquals(origs, again.call().origs());
    assertFalse(again.allocCache(), "unpolled: not from the per-CPU cache");
    DmNext.SubmitClones s = (DmNext.SubmitClones) md.dmSplitAndProcessBio(again, 0, clones(again));
    assertEquals(2, s.groups().size(), "one group a clone, though both go to one queue");
    assertEquals(s.groups().get(0).hctx(), s.groups().get(1).hctx());
  }

  @Test
  void clonesOfOneSubmissionShouldGoBelowGroupedByHardwareQueueInOrder() {
    MappedDevice md = dm(TWO);
    Bio a = orig(0);
    Bio b = orig(2048);
    Bio c = orig(8);
    DmNext.SubmitClones s = submit(md, List.of(a, b, c));
    assertEquals(2, s.groups().size());
    DmNext.CloneGroup first = s.groups().get(0);
    DmNext.CloneGroup second = s.groups().get(1);
    assertEquals("/dev/nullb0", first.device());
    assertEquals(2, first.clones().size(), "a's and c's clones, under one plug");
    assertSame(a, ((DmIo) first.clones().get(0).owner()).orig());
    assertSame(c, ((DmIo) first.clones().get(1).owner()).orig());
    assertEquals("/dev/nullb1", second.device());
    assertSame(b, ((DmIo) second.clones().get(0).owner()).orig());

    DmNext.SubmitClones next =
        (DmNext.SubmitClones) md.clonesSubmitted(s, 10, first.clones(), List.of());
    assertSame(second.clones().get(0), next.group().clones().get(0), "then the second group");
    DmNext.PutClones put =
        (DmNext.PutClones) md.clonesSubmitted(next, 20, second.clones(), List.of());
    DmNext.Return r = md.clonesPut(put, 30);
    assertEquals(List.of(a, c, b), r.ended(), "in the order their clones ended");
    assertEquals(3, r.queued());
    assertTrue(audited(md));
  }

  @Test
  void aPolledOriginalsCloneMayComeFromIoBsPerCpuCacheOnlyWithTheClonePatch() {
    DmNext.AllocClones plain =
        (DmNext.AllocClones) dm(ONE, false).dmSubmitBio(CPU, WHAT, 0, List.of(polled(0)));
    assertFalse(plain.allocCache());
    DmNext.AllocClones patched =
        (DmNext.AllocClones) dm(ONE, true).dmSubmitBio(CPU, WHAT, 0, List.of(polled(0)));
    assertTrue(patched.allocCache(), "seed 002 1/3");
    DmNext.AllocClones unpolled =
        (DmNext.AllocClones) dm(ONE, true).dmSubmitBio(CPU, WHAT, 0, List.of(orig(0)));
    assertFalse(unpolled.allocCache());
    assertEquals(KernelFn.BIO_ALLOC_CLONE, patched.cacheFn());
    assertEquals(0, patched.nrVecs(), "a clone shares its original's bio_vecs");
  }

  @Test
  void theCloneShouldComeFromIoBsAndGoBackToItWithItsDmIo() {
    MappedDevice md = dm(ONE);
    List<Bio> origs = List.of(orig(0), orig(8));
    DmNext.AllocClones alloc = (DmNext.AllocClones) md.dmSubmitBio(CPU, WHAT, 0, origs);
    assertEquals(2, alloc.count(), "one clone an original, from io_bs");
    List<Bio> fromIoBs = clones(alloc);
    DmNext.SubmitClones s = (DmNext.SubmitClones) md.dmSplitAndProcessBio(alloc, 0, fromIoBs);
    for (Bio clone : fromIoBs) {
      assertInstanceOf(DmIo.class, clone.owner(), "bi_private: the tio in the dm_io");
    }
    assertEquals(fromIoBs, s.group().clones());
    DmNext.PutClones put = (DmNext.PutClones) md.clonesSubmitted(s, 10, fromIoBs, List.of());
    assertEquals(fromIoBs, put.clones(), "free_io puts each clone back");
    for (Bio clone : put.clones()) {
      assertSame(ioBs, clone.pool());
    }
  }

  @Test
  void dmSubmitBioShouldChargeItsPathPerBioToTheCallingCpu() {
    MappedDevice md = dm(ONE);
    DmNext next = md.dmSubmitBio(CPU, WHAT, 1_000, List.of(orig(0), orig(8), orig(16)));
    assertEquals(3, md.ledger().steps(CPU).get("dm_submit_bio").calls());
    assertEquals(3, md.ledger().steps(CPU).get("submit_bio_noacct").calls());
    assertEquals(
        1_000 + md.ledger().time(CPU, WHAT), next.atPs(), "the call's time is its charges");
    assertEquals(0, md.ledger().totalPs(0), "nothing on another CPU");
  }

  @Test
  void whileSuspendedANowaitBioShouldEndWithEagainAndAnyOtherWaitForTheResume() {
    MappedDevice md = dm(ONE);
    md.suspend();
    Bio nowait = polled(0);
    nowait.setNowait();
    Bio blocking = polled(8);
    DmNext.Return r = (DmNext.Return) md.dmSubmitBio(CPU, WHAT, 0, List.of(nowait, blocking));
    assertEquals(List.of(nowait), r.failed(), "bio_wouldblock_error");
    assertEquals(-MappedDevice.EAGAIN, nowait.status());
    assertEquals(1, r.queued(), "queue_io");
    assertEquals(0, md.allocated(), "nothing reached the table");
    assertEquals(1L, md.requeues().get(MappedDevice.Requeue.SUSPENDED_NOWAIT));
    assertEquals(1L, md.requeues().get(MappedDevice.Requeue.SUSPENDED_DEFERRED));
    assertFalse(audited(md), "a bio held by the suspend");

    DmNext.AllocClones again = (DmNext.AllocClones) md.dmResume(0, WHAT, 100);
    assertFalse(md.suspended());
    assertEquals(List.of(blocking), again.call().origs(), "dm_queue_flush: md->wq submits it");
    assertEquals(0, again.cpu(), "on the resuming CPU");
    assertFalse(again.call().resubmitting(), "no switch back: the resume's own kworker");
    assertEquals(1, md.resubmitted());
  }

  @Test
  void aResumeWithNothingDeferredShouldReturnAtOnce() {
    MappedDevice md = dm(ONE);
    md.suspend();
    DmNext.Return r = (DmNext.Return) md.dmResume(0, WHAT, 100);
    assertEquals(100, r.atPs());
    assertEquals(0, md.ledger().totalPs(0));
    assertFalse(md.suspended());
  }

  @Test
  void aNoflushSuspendShouldLetInFlightClonesComplete() {
    MappedDevice md = dm(ONE);
    Bio o = orig(0);
    DmNext.SubmitClones s = submit(md, List.of(o));
    md.suspend();
    DmNext.PutClones put =
        (DmNext.PutClones) md.clonesSubmitted(s, 10, s.group().clones(), List.of());
    assertEquals(List.of(o), md.clonesPut(put, 20).ended(), "nothing is pushed back");
    assertTrue(audited(md));
  }

  @Test
  void mdWqShouldNotRunWhileTheDeviceIsSuspended() {
    MappedDevice md = dm(ONE);
    Bio o = polled(0);
    DmIo io = md.allocIoAndMap(o, ioBs.bioAllocBioset(CPU, false, 0).bio());
    md.submitted(io);
    io.clone().setStatus(-MappedDevice.EAGAIN);
    md.cloneEndio(io.clone());
    md.suspend();
    DmNext next = md.dmPollBio(CPU, CpuTime.POLL, 0, o);
    DmNext.Return r = md.clonesPut((DmNext.PutClones) next, 10);
    assertEquals(List.of(), r.ended(), "requeued, and left on md->deferred");
    assertTrue(md.hasDeferred(CPU));
    assertThrows(InvariantBroken.class, () -> md.takeDeferred(CPU));
  }

  @Test
  void bioEndedBelowThatAreNotThisDevicesClonesShouldBeHandedBackAsTheyAre() {
    MappedDevice md = dm(ONE);
    Bio raw = orig(0);
    DmNext.Return r = (DmNext.Return) md.cloneEndioInInterrupt(0, CpuTime.IRQ, 0, List.of(raw));
    assertEquals(List.of(raw), r.ended());
    assertEquals(0, md.ledger().totalPs(0), "no clone_endio");
  }

  @Test
  void aRequeueInAnInterruptShouldBreakTheModel() {
    // A polled clone ends by poll, not by interrupt; should one end -EAGAIN in an interrupt with
    // only its own reference left, md->wq's work would be queued from it: not modelled.
    MappedDevice md = dm(ONE);
    Bio o = polled(0);
    DmIo io = md.allocIoAndMap(o, ioBs.bioAllocBioset(CPU, false, 0).bio());
    md.submitted(io);
    io.decPending(0);
    io.clone().setStatus(-MappedDevice.EAGAIN);
    assertThrows(
        InvariantBroken.class,
        () -> md.cloneEndioInInterrupt(CPU, CpuTime.IRQ, 0, List.of(io.clone())));
  }
}

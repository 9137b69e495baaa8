package blksim.devices;

import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.BlksimSettings;
import blksim.config.DmTable;
import blksim.devices.drivers.md.DmIo;
import blksim.devices.drivers.md.MappedDevice;
import blksim.devices.drivers.null_blk.NullBlk;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.block.blk_mq.Request;
import blksim.queues.books.Books;
import blksim.queues.cost.Charger;
import blksim.queues.cost.PathCosts;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The devices' end-of-run checks, each broken on purpose by leaving the model mid-way through what
 * it does, and seen to fire: null_blk's poll list, DM's polled list, md->deferred and the bios a
 * suspend holds.
 */
class BooksOnPurposeTest {
  private final BioSet bios = new BioSet("test", BlksimSettings.defaults().bioset(), 1);

  private static List<String> audit(NullBlk nb) {
    Books b = new Books();
    nb.audit(b);
    return b.violations();
  }

  private static List<String> audit(MappedDevice md) {
    Books b = new Books();
    md.audit(b);
    return b.violations();
  }

  private static void fires(List<String> violations, String expected) {
    assertTrue(
        violations.stream().anyMatch(v -> v.contains(expected)),
        "expected '" + expected + "' in " + violations);
  }

  private Bio bio() {
    Bio b = bios.bioAllocBioset(0, false, 0).bio();
    b.setRange(0, 4096);
    return b;
  }

  @Test
  void aRequestLeftOnAPollQueueShouldBeCaught() {
    NullBlk nb = new NullBlk(0, BlksimSettings.defaults().nullBlk());
    Request rq = new HwCtx(1, HctxType.POLL, 4, 1).allocRequest(0, bio(), 0);
    nb.queueRq(1, rq);
    List<String> v = audit(nb);
    fires(v, "nullb0: requests left on hctx1's poll_list (expected 0, found 1)");
    fires(v, "nullb0: requests queued vs completed (expected 1, found 0)");
  }

  private static MappedDevice dm() {
    return new MappedDevice(
        "dm-0",
        DmTable.parse("dm-0", "0 1024 linear /dev/nullb0 0"),
        true,
        false,
        (dev, cpu, polled) -> 0,
        new Charger(
            PathCosts.of(
                BlksimSettings.defaults().profile(),
                BlksimSettings.defaults().kernel(),
                new PathCosts.Knobs(true, true, true)),
            "dm-0"));
  }

  @Test
  void aPolledDmIoNeverCompletedShouldBeCaught() {
    MappedDevice md = dm();
    Bio orig = bio();
    orig.setPolled();
    DmIo io = md.allocIoAndMap(orig, bio());
    md.submitted(io);
    List<String> v = audit(md);
    fires(v, "dm-0: dm_ios never completed (md->pending_io) (expected 0, found 1)");
    fires(v, "dm-0: dm_ios allocated vs completed (expected 1, found 0)");
    fires(v, "dm-0: dm_ios left on a polled bio's list (expected 0, found 1)");
  }

  @Test
  void aRequeuedBioNeverSubmittedAgainShouldBeCaught() {
    MappedDevice md = dm();
    Bio orig = bio();
    orig.setPolled();
    Bio clone = bio();
    DmIo io = md.allocIoAndMap(orig, clone);
    md.submitted(io);
    clone.setStatus(-MappedDevice.EAGAIN);
    md.cloneEndio(clone);
    md.pollDone(io);
    md.complete(io, 0);
    fires(audit(md), "dm-0: bios left on md->deferred (expected 0, found 1)");
  }

  @Test
  void aBioHeldBySuspendAndNeverResumedShouldBeCaught() {
    MappedDevice md = dm();
    md.suspend();
    md.blockedForSuspend(bio());
    fires(audit(md), "dm-0: bios left deferred by a suspend (expected 0, found 1)");
  }
}

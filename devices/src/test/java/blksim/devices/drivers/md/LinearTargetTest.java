package blksim.devices.drivers.md;

import static org.junit.jupiter.api.Assertions.assertEquals;

import blksim.config.BlksimSettings;
import blksim.config.DmTable;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import org.junit.jupiter.api.Test;

/** dm-linear's mapping (drivers/md/dm-linear.c, docs/kernel.md section 4.1). */
class LinearTargetTest {
  private final DmTable table =
      DmTable.parse("dm-0", "0 2048 linear /dev/nullb0 4096;2048 1024 linear /dev/nullb1 8");

  @Test
  void linearMapSectorShouldBeTheTargetsStartBelowPlusTheOffsetInsideTheTarget() {
    LinearTarget first = new LinearTarget(table.targets().get(0));
    LinearTarget second = new LinearTarget(table.targets().get(1));
    assertEquals(4096, first.linearMapSector(0));
    assertEquals(4096 + 2047, first.linearMapSector(2047));
    assertEquals(8, second.linearMapSector(2048), "the target's first sector is lc->start");
    assertEquals(8 + 1000, second.linearMapSector(2048 + 1000));
  }

  @Test
  void linearMapShouldPointTheCloneAtItsMappedSectorKeepingItsSize() {
    LinearTarget second = new LinearTarget(table.targets().get(1));
    Bio clone =
        new BioSet("test", BlksimSettings.defaults().bioset(), 1).bioAllocBioset(0, false, 0).bio();
    clone.setRange(2056, 4096);
    second.linearMap(clone);
    assertEquals(8 + 8, clone.sector());
    assertEquals(4096, clone.sizeBytes());
    assertEquals("/dev/nullb1", second.device());
  }
}

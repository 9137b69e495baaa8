package blksim.devices.drivers.md;

import blksim.config.DmTable;
import blksim.queues.block.bio.Bio;

/**
 * Models one dm-linear target: {@code struct dm_target} with its {@code struct linear_c}
 * (drivers/md/dm-linear.c, 5.18-5.19): the table's sectors {@code ti->begin} to {@code ti->begin +
 * ti->len} over the device below ({@code lc->dev}) from its sector {@code lc->start}
 * (docs/kernel.md section 4.1).
 *
 * @param ti the table line it was made from ({@code linear_ctr})
 */
public record LinearTarget(DmTable.Target ti) {

  /** The path of the device below, {@code lc->dev}. */
  public String device() {
    return ti.device();
  }

  /**
   * {@code linear_map_sector}: {@code lc->start + dm_target_offset(ti, bi_sector)}, the sector's
   * offset inside the target added to where the target starts on the device below.
   */
  public long linearMapSector(long sector) {
    return ti.offset() + (sector - ti.start());
  }

  /**
   * {@code linear_map}: points {@code clone} at the device below ({@code bio_set_dev}) and at its
   * mapped sector; the caller submits it ({@code DM_MAPIO_REMAPPED}).
   */
  public void linearMap(Bio clone) {
    clone.setRange(linearMapSector(clone.sector()), clone.sizeBytes());
  }
}

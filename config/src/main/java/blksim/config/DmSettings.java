package blksim.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The device-mapper devices of a run: {@code dm-0}, {@code dm-1}, ..., each created from its table
 * as {@code dmsetup create} would.
 *
 * @param tables each device's table, by minor number
 * @param ioBsSlabObjects dm_io objects (the front pad with its embedded clone) a slab of a device's
 *     {@code io_bs} holds
 */
public record DmSettings(List<DmTable> tables, int ioBsSlabObjects) {

  public DmSettings {
    tables = List.copyOf(tables);
  }

  /** The name of device {@code minor}: dm-0. */
  public static String name(int minor) {
    return "dm-" + minor;
  }

  static DmSettings from(SettingsReader r) {
    List<DmTable> tables = new ArrayList<>();
    List<String> texts = r.strings("blksim.dm.tables");
    for (int i = 0; i < texts.size(); i++) {
      tables.add(DmTable.parse(name(i), texts.get(i)));
    }
    return new DmSettings(tables, r.intIn("blksim.dm.io-bs-slab-objects", 1, 1 << 16));
  }
}

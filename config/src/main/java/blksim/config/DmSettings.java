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
public record DmSettings(List<DmTable> tables, int ioBsSlabObjects, List<Suspend> suspends) {

  /**
   * {@code dmsetup suspend --noflush dm-N} at {@code atNs} of virtual time, and {@code dmsetup
   * resume} {@code forNs} later.
   */
  public record Suspend(int minor, long atNs, long forNs) {}

  public DmSettings {
    tables = List.copyOf(tables);
    suspends = List.copyOf(suspends);
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
    List<Suspend> suspends = new ArrayList<>();
    for (String event : r.strings("blksim.dm.suspend")) {
      suspends.add(suspend(event, tables.size()));
    }
    return new DmSettings(tables, r.intIn("blksim.dm.io-bs-slab-objects", 1, 1 << 16), suspends);
  }

  /** Parses {@code "dm-0 at 200us for 50us"}. */
  private static Suspend suspend(String event, int nrTables) {
    String[] f = event.strip().split("\\s+");
    String accepted =
        ": accepted '<dm-N> at <duration> for <duration>', e.g. 'dm-0 at 200us for 50us'";
    if (f.length != 5 || !f[1].equals("at") || !f[3].equals("for")) {
      throw new ConfigError("blksim.dm.suspend = '" + event + "'" + accepted);
    }
    int minor = -1;
    for (int i = 0; i < nrTables; i++) {
      if (f[0].equals(name(i))) {
        minor = i;
      }
    }
    if (minor < 0) {
      throw new ConfigError(
          "blksim.dm.suspend = '" + event + "': no such device " + f[0] + " (--dm-table)");
    }
    return new Suspend(minor, duration(event, f[2]), duration(event, f[4]));
  }

  private static long duration(String event, String d) {
    try {
      long ns =
          com.typesafe.config.ConfigFactory.parseString("d = " + d)
              .getDuration("d", java.util.concurrent.TimeUnit.NANOSECONDS);
      if (ns < 0) {
        throw new ConfigError("blksim.dm.suspend = '" + event + "': " + d + " is negative");
      }
      return ns;
    } catch (com.typesafe.config.ConfigException | ArithmeticException e) {
      throw new ConfigError(
          "blksim.dm.suspend = '" + event + "': " + d + " is not a duration, e.g. 50us");
    }
  }
}

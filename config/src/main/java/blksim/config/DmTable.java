package blksim.config;

import java.util.ArrayList;
import java.util.List;

/**
 * A device-mapper table in {@code dmsetup} syntax (dmsetup(8), TABLE FORMAT): one target per line,
 * {@code logical_start_sector num_sectors target_type target_args}, in 512-byte sectors. Lines are
 * separated by newlines or {@code ;}. The one target type modelled is {@code linear} with {@code
 * <dev path> <offset>} (Documentation/admin-guide/device-mapper/linear.rst). Checks are those of
 * {@code dm_table_add_target} and {@code linear_ctr}; the ones that need the underlying device (its
 * size, its logical block size) are made where the devices are known.
 *
 * @param targets the targets, in order, each starting where the one before ends
 */
public record DmTable(List<Target> targets) {

  /**
   * One {@code linear} target.
   *
   * @param line its line in the table, from 1
   * @param start {@code logical_start_sector}
   * @param sectors {@code num_sectors}
   * @param device the destination device's path
   * @param offset the start sector on it
   */
  public record Target(int line, long start, long sectors, String device, long offset) {

    /** The first sector past this target. */
    public long end() {
      return start + sectors;
    }
  }

  public DmTable {
    targets = List.copyOf(targets);
  }

  /** The table's size: the end of its last target, in sectors. */
  public long sectors() {
    return targets.get(targets.size() - 1).end();
  }

  /**
   * Parses a table.
   *
   * @param name the device it is for (dm-0), for messages
   * @throws ConfigError naming the line, the field and what is accepted
   */
  public static DmTable parse(String name, String text) {
    String[] lines = text.split("[\n;]", -1);
    List<Target> targets = new ArrayList<>();
    long next = 0;
    int nr = 0;
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      nr++;
      Target t = target(name, nr, line);
      if (t.start() != next) {
        throw new ConfigError(
            where(name, nr, line)
                + "Gap in table: this target starts at sector "
                + t.start()
                + ", the one before ends at "
                + next
                + " (each target must start where the last ended, the first at 0)");
      }
      targets.add(t);
      next = t.end();
    }
    if (targets.isEmpty()) {
      throw new ConfigError(
          name
              + ": the table has no target: accepted lines of the form"
              + " '<start> <sectors> linear <dev path> <offset>'");
    }
    return new DmTable(targets);
  }

  private static Target target(String name, int nr, String line) {
    String[] f = line.split("\\s+");
    String at = where(name, nr, line);
    if (f.length < 3) {
      throw new ConfigError(
          at + "expected '<start> <sectors> <target type> <args>', got " + f.length + " fields");
    }
    long start = sector(at, "logical_start_sector", f[0]);
    long sectors = sector(at, "num_sectors", f[1]);
    if (sectors == 0) {
      throw new ConfigError(at + "num_sectors 0: a target must have at least one sector");
    }
    if (start > Long.MAX_VALUE / 1024 - sectors) {
      throw new ConfigError(at + "the target ends past the largest device blksim models");
    }
    String type = f[2];
    if (!type.equals("linear")) {
      String refused =
          at
              + "target type "
              + type
              + (KNOWN_TYPES.contains(type) ? " is not modelled yet" : " is unknown")
              + ": accepted linear";
      throw KNOWN_TYPES.contains(type)
          ? Limit.DM_TARGETS.refusal(refused)
          : new ConfigError(refused);
    }
    if (f.length != 5) {
      // linear_ctr: "Invalid argument count"
      throw new ConfigError(
          at + "linear: Invalid argument count: accepted two, '<dev path> <offset>'");
    }
    long offset;
    try {
      offset = Long.parseUnsignedLong(f[4]);
    } catch (NumberFormatException e) {
      // linear_ctr: "Invalid device sector"
      throw new ConfigError(
          at + "linear: Invalid device sector " + f[4] + ": accepted a sector number");
    }
    if (offset < 0 || offset > Long.MAX_VALUE / 1024 - sectors) {
      throw new ConfigError(at + "linear: offset " + f[4] + " is past any device blksim models");
    }
    return new Target(nr, start, sectors, f[3], offset);
  }

  private static long sector(String at, String field, String s) {
    if (!s.matches("[0-9]{1,19}")) {
      throw new ConfigError(at + field + " " + s + ": accepted a number of 512-byte sectors");
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new ConfigError(at + field + " " + s + " is too large");
    }
  }

  private static String where(String name, int nr, String line) {
    String shown = line.length() > 80 ? line.substring(0, 77) + "..." : line;
    return name + ": table line " + nr + " '" + shown + "': ";
  }

  /** Target types of the kernel that blksim does not model. */
  private static final List<String> KNOWN_TYPES =
      List.of(
          "striped",
          "mirror",
          "snapshot",
          "snapshot-origin",
          "zero",
          "error",
          "crypt",
          "delay",
          "flakey",
          "thin",
          "thin-pool",
          "cache",
          "raid",
          "multipath",
          "verity",
          "writecache",
          "integrity",
          "era",
          "clone",
          "dust",
          "switch",
          "unstriped",
          "zoned",
          "ebs",
          "vdo");
}

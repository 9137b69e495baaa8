package blksim.loadgen.fuzz;

import blksim.config.Patch;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What the generator draws for its device-mapper cases: tables good and bad, and the kernels,
 * patches and profiles that differ from the raw device's only under DM.
 */
final class DmTables {
  private DmTables() {}

  /** The profiles drawn for DM cases: the raw ones and the DM box's. */
  static final List<String> PROFILES =
      List.of("begunkov-2021", "xeon-gold-6154", "zen2-3970x", "snitzer-2022");

  /** The named kernels drawn for DM cases: 5.18 and 5.19 differ from 5.16 only in DM. */
  static final List<String> KERNELS = List.of("5.15", "5.16", "5.17", "5.18", "5.19", "6.1");

  /** Seed 002's patches, which change only device mapper. */
  static final Set<Patch> PATCHES =
      Set.of(
          Patch.DM_CLONE_PERCPU_CACHE,
          Patch.DM_IO_BIOSET_PERCPU_CACHE,
          Patch.DM_PERCPU_CACHE_ONLY_IF_POLL);

  /** Sectors of the smallest null_blk device a case can have (gb=1). */
  static final long GIB_SECTORS = 1L << 21;

  /**
   * A table over {@code dev}: the identity of its first GiB (kind 0), its two halves swapped (1),
   * or three targets, the second remapped (2).
   */
  static String good(int kind, String dev) {
    long half = GIB_SECTORS / 2;
    return switch (kind) {
      case 0 -> String.format(Locale.ROOT, "0 %d linear %s 0", GIB_SECTORS, dev);
      case 1 ->
          String.format(
              Locale.ROOT, "0 %d linear %s %d;%d %d linear %s 0", half, dev, half, half, half, dev);
      default ->
          String.format(
              Locale.ROOT,
              "0 1024 linear %s 0;1024 1024 linear %s 4096;2048 %d linear %s 2048",
              dev,
              dev,
              GIB_SECTORS - 2048,
              dev);
    };
  }

  /** A table the kernel refuses, each field's way (kind 0 to 7). */
  static String bad(int kind, String dev) {
    return switch (kind) {
      case 0 -> "1 " + GIB_SECTORS + " linear " + dev + " 0";
      case 1 -> "0 0 linear " + dev + " 0";
      case 2 -> "0 " + GIB_SECTORS + " striped 2 8 " + dev + " 0";
      case 3 -> "0 " + GIB_SECTORS + " linear " + dev;
      case 4 -> "0 " + GIB_SECTORS + " linear " + dev + " x";
      case 5 -> "0 " + GIB_SECTORS + " linear /dev/sda 0";
      case 6 -> "0 " + GIB_SECTORS + " linear " + dev + " " + (1L << 40);
      default -> "0 1000 linear " + dev + " 0;2000 1000 linear " + dev + " 0";
    };
  }
}

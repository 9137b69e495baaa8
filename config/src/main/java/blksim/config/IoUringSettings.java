package blksim.config;

import java.util.List;

/**
 * The t/io_uring command line (fio {@code t/io_uring.c}), one field per flag, with t/io_uring's own
 * clamping applied: {@code -s 0} and {@code -c 0} mean 1, and both are clamped to the depth.
 *
 * @param depth {@code -d}, ring entries and most I/Os in flight per submitter
 * @param batchSubmit {@code -s}
 * @param batchComplete {@code -c}
 * @param blockSize {@code -b}, bytes per I/O
 * @param tscRateHz {@code -T}, echoed only
 */
public record IoUringSettings(
    int depth,
    int batchSubmit,
    int batchComplete,
    int blockSize,
    boolean polled,
    boolean fixedBuffers,
    boolean registerFiles,
    int threads,
    boolean oDirect,
    boolean nop,
    boolean trackLatencies,
    long tscRateHz,
    boolean randomIo,
    boolean aio,
    boolean syncIo,
    boolean registerRing,
    boolean numaPlacement,
    boolean vectored,
    boolean restriction,
    boolean passthrough,
    String hugetlbPath,
    List<String> files) {

  /** IORING_MAX_ENTRIES (io_uring/io_uring.c). */
  public static final int IORING_MAX_ENTRIES = 32768;

  public IoUringSettings {
    files = List.copyOf(files);
  }

  static IoUringSettings from(SettingsReader r) {
    String p = "blksim.io-uring.";
    int depth = r.intIn(p + "depth", 1, IORING_MAX_ENTRIES);
    int submit = Math.min(Math.max(1, r.intIn(p + "batch-submit", 0, IORING_MAX_ENTRIES)), depth);
    int complete =
        Math.min(Math.max(1, r.intIn(p + "batch-complete", 0, IORING_MAX_ENTRIES)), depth);
    List<String> files = r.strings(p + "files");
    if (files.isEmpty()) {
      throw new ConfigError(p + "files is empty: t/io_uring needs at least one file (/dev/nullb0)");
    }
    return new IoUringSettings(
        depth,
        submit,
        complete,
        r.intIn(p + "block-size", 1, 1 << 24),
        r.bool(p + "polled"),
        r.bool(p + "fixed-buffers"),
        r.bool(p + "register-files"),
        r.intIn(p + "threads", 1, 4096),
        r.bool(p + "o-direct"),
        r.bool(p + "nop"),
        r.bool(p + "track-latencies"),
        r.longIn(p + "tsc-rate", 0, Long.MAX_VALUE),
        r.bool(p + "random-io"),
        r.bool(p + "aio"),
        r.bool(p + "sync-io"),
        r.bool(p + "register-ring"),
        r.bool(p + "numa-placement"),
        r.bool(p + "vectored"),
        r.bool(p + "restriction"),
        r.bool(p + "passthrough"),
        r.string(p + "hugetlb-path"),
        files);
  }

  /** The SQ ring size the kernel reports: entries rounded up to a power of two. */
  public int sqRingEntries() {
    return roundupPow2(depth);
  }

  /** The CQ ring size: t/io_uring asks IORING_SETUP_CQSIZE with cq_entries = depth, rounded up. */
  public int cqRingEntries() {
    return roundupPow2(depth);
  }

  static int roundupPow2(int n) {
    return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
  }
}

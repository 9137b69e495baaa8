package blksim.loadgen.report;

import blksim.config.IoUringSettings;
import blksim.queues.tiouring.FileAssignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The lines t/io_uring prints (fio t/io_uring.c, master), formatted from blksim's figures. */
public final class TIoUringFormat {
  private TIoUringFormat() {}

  /** t/io_uring's percentile list ({@code plist}). */
  public static final double[] PLIST = {
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99
  };

  /** Virtual thread ids start here; submitter i has tid {@code FIRST_TID + i}. */
  public static final int FIRST_TID = 1000;

  /**
   * The startup lines ({@code submitter_init}): each thread's {@code submitter=} line, with the
   * last file {@code main} handed it and how many, then the two lines the first thread to set up
   * its ring prints once. Threads print their first line as they start and the others after {@code
   * io_uring_setup}, so the {@code submitter=} lines come first, in thread order.
   */
  public static List<String> startup(IoUringSettings u) {
    List<String> lines = new ArrayList<>();
    List<List<Integer>> files = FileAssignment.assign(u.threads(), u.files().size());
    for (int t = 0; t < u.threads(); t++) {
      List<Integer> mine = files.get(t);
      lines.add(
          String.format(
              Locale.ROOT,
              "submitter=%d, tid=%d, file=%s, nfiles=%d, node=%d",
              t,
              FIRST_TID + t,
              u.files().get(mine.get(mine.size() - 1)),
              mine.size(),
              -1));
    }
    // setup_aio turns polling and registered files and buffers off, and says so on stderr
    boolean aio = u.aio() && !u.syncIo();
    if (aio && u.polled()) {
      lines.add("aio does not support polled IO");
    }
    if (aio && (u.fixedBuffers() || u.registerFiles())) {
      lines.add("aio does not support registered files or buffers");
    }
    lines.add(
        String.format(
            Locale.ROOT,
            "polled=%d, fixedbufs=%d, register_files=%d, buffered=%d, QD=%d",
            bit(u.polled() && !aio),
            bit(u.fixedBuffers() && !aio),
            bit(u.registerFiles() && !aio),
            bit(!u.oDirect()),
            u.depth()));
    lines.add(
        u.syncIo()
            ? "Engine=preadv2"
            : aio
                ? "Engine=aio"
                : String.format(
                    Locale.ROOT,
                    "Engine=io_uring, sq_ring=%d, cq_ring=%d",
                    u.sqRingEntries(),
                    u.cqRingEntries()));
    return lines;
  }

  /**
   * One status line: {@code IOPS=..., BW=..., IOS/call=.../...}.
   *
   * @param iops I/Os per second over the interval
   * @param rpc submissions per call, -1 if no call
   * @param ipc reaps per call, -1 if no call
   * @param bs block size
   */
  public static String status(long iops, long rpc, long ipc, int bs) {
    return iops(iops) + ", BW=" + bw(bandwidthMib(iops, bs)) + ", IOS/call=" + rpc + "/" + ipc;
  }

  /** One status line of {@code -N1}, which prints no bandwidth: {@code IOPS=..., IOS/call=...}. */
  public static String nopStatus(long iops, long rpc, long ipc) {
    return iops(iops) + ", IOS/call=" + rpc + "/" + ipc;
  }

  /**
   * t/io_uring's integer MiB/s: {@code iops / (1048576 / bs)}, or {@code iops * (bs / 1048576)}.
   */
  public static long bandwidthMib(long iops, int bs) {
    return bs > 1048576 ? iops * (bs / 1048576) : iops / (1048576 / bs);
  }

  /** {@code IOPS=3.30M}, {@code IOPS=608.26K} or {@code IOPS=90000}. */
  public static String iops(long iops) {
    if (iops > 1_000_000) {
      return String.format(Locale.ROOT, "IOPS=%.2fM", iops / 1_000_000.0);
    }
    if (iops > 100_000) {
      return String.format(Locale.ROOT, "IOPS=%.2fK", iops / 1_000.0);
    }
    return "IOPS=" + iops;
  }

  /** {@code Maximum IOPS=...}, scaled like the status line. */
  public static String maximum(long maxIops) {
    return "Maximum " + iops(maxIops);
  }

  private static String bw(long mib) {
    return mib > 2000 ? String.format(Locale.ROOT, "%.2fGiB/s", mib / 1000.0) : mib + "MiB/s";
  }

  /**
   * {@code show_clat_percentiles} with precision 4: the header and the value lines, in nsec or,
   * when every value is large, usec.
   *
   * @param values the value at each {@link #PLIST} percentile, in ns
   * @param indent prefix of every line
   */
  public static List<String> percentiles(long[] values, String indent) {
    long minv = Long.MAX_VALUE;
    long maxv = 0;
    for (long v : values) {
      minv = Math.min(minv, v);
      maxv = Math.max(maxv, v);
    }
    boolean usec = minv > 2000 && maxv > 99999;
    long divisor = usec ? 1000 : 1;
    long scaled = maxv / divisor;
    int width = Math.max(5, scaled <= 0 ? 0 : (int) (Math.log10(scaled) + 1));
    int precision = 4;
    int perLine = (80 - 7) / (precision + 10 + width);
    String fmt = " %" + (precision + 3) + "." + precision + "fth=[%" + width + "d]%c";
    List<String> lines = new java.util.ArrayList<>();
    lines.add(indent + "    percentiles (" + (usec ? "usec" : "nsec") + "):");
    StringBuilder line = new StringBuilder(indent + "     |");
    for (int j = 0; j < values.length; j++) {
      if (j != 0 && j % perLine == 0) {
        line = new StringBuilder(indent + "     |");
      }
      long v = usec ? (values[j] + 999) / 1000 : values[j];
      boolean last = j == values.length - 1;
      line.append(String.format(Locale.ROOT, fmt, PLIST[j], v, last ? ' ' : ','));
      if (last || j % perLine == perLine - 1) {
        lines.add(line.toString().stripTrailing());
      }
    }
    return lines;
  }

  private static int bit(boolean b) {
    return b ? 1 : 0;
  }
}

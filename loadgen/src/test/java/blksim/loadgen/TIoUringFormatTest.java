package blksim.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import blksim.loadgen.report.TIoUringFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** t/io_uring's own arithmetic and formats (fio t/io_uring.c, docs/kernel.md 1.4). */
class TIoUringFormatTest {

  @Test
  void statusLinesShouldMatchPublishedOutput() {
    // Kanchan Joshi, 2022-09-29: "IOPS=2.60M, BW=1271MiB/s, IOS/call=32/31" at -b512
    assertEquals(
        "IOPS=2.60M, BW=1271MiB/s, IOS/call=32/31", TIoUringFormat.status(2_603_008, 32, 31, 512));
    // Ming Lei, 2025-10: "IOPS=608.26K, BW=2.38GiB/s, IOS/call=32/31" at the default -b4096
    assertEquals(
        "IOPS=608.26K, BW=2.38GiB/s, IOS/call=32/31", TIoUringFormat.status(608_260, 32, 31, 4096));
    assertEquals(
        "IOPS=90000, BW=351MiB/s, IOS/call=-1/-1", TIoUringFormat.status(90_000, -1, -1, 4096));
    assertEquals("Maximum IOPS=10.04M", TIoUringFormat.maximum(10_040_000));
  }

  @Test
  void bandwidthShouldUseTIoUringsIntegerMiB() {
    assertEquals(1611, TIoUringFormat.bandwidthMib(3_300_000, 512));
    assertEquals(4, TIoUringFormat.bandwidthMib(2, 2 << 20), "bs above 1 MiB multiplies");
  }

  @Test
  void percentilesShouldBeThreePerLineWithFourDecimals() {
    long[] v = new long[17];
    for (int i = 0; i < v.length; i++) {
      v[i] = 9000 + i;
    }
    List<String> lines = TIoUringFormat.percentiles(v, "");
    assertEquals("    percentiles (nsec):", lines.get(0));
    assertEquals("     |  1.0000th=[ 9000],  5.0000th=[ 9001], 10.0000th=[ 9002],", lines.get(1));
    assertEquals("     | 99.9500th=[ 9015], 99.9900th=[ 9016]", lines.get(6));
    assertEquals(7, lines.size());
  }

  @Test
  void largeLatenciesShouldBeShownInUsecRoundedUp() {
    long[] v = new long[17];
    java.util.Arrays.fill(v, 123_456);
    List<String> lines = TIoUringFormat.percentiles(v, "");
    assertEquals("    percentiles (usec):", lines.get(0));
    assertEquals("     |  1.0000th=[  124],  5.0000th=[  124], 10.0000th=[  124],", lines.get(1));
  }
}

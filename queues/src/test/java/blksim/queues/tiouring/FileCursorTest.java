package blksim.queues.tiouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.random.RandomStreams;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * t/io_uring's choice of file and offset per read (docs/kernel.md section 1.2): {@code
 * get_next_file} moves on when a file has its share of the depth pending, {@code get_offset} is a
 * random block short of the last or a sequential cursor that wraps before the end.
 */
class FileCursorTest {
  private static final int BS = 4096;

  private static FileCursor cursor(long[] sizes, int depth, boolean random) {
    return new FileCursor(sizes, BS, depth, random, RandomStreams.of(1, "submitter0"));
  }

  @Test
  void getNextFileShouldMoveOnWhenTheFileHasItsShareOfTheDepthPending() {
    FileCursor c = cursor(new long[] {1L << 30, 1L << 30}, 4, false);
    List<Integer> picks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      picks.add(c.next().fileno);
    }
    assertEquals(List.of(0, 0, 1, 1), picks, "per_file_depth = ceil(4 / 2)");
    c.reaped(1);
    assertEquals(1, c.next().fileno, "the current file has room again: it stays");
  }

  @Test
  void oneFileShouldTakeEveryReadWhateverIsPending() {
    FileCursor c = cursor(new long[] {1L << 30}, 2, false);
    for (int i = 0; i < 5; i++) {
      assertEquals(0, c.next().fileno);
    }
  }

  @Test
  void aRandomOffsetShouldBeABlockShortOfTheLast() {
    FileCursor c = cursor(new long[] {4L * BS}, 1, true);
    SubmitterFile f = c.next();
    TreeSet<Long> seen = new TreeSet<>();
    for (int i = 0; i < 1_000; i++) {
      long off = c.offset(f);
      assertEquals(0, off % BS, "block aligned");
      seen.add(off / BS);
    }
    assertEquals(new TreeSet<>(List.of(0L, 1L, 2L)), seen, "max_blocks-- : never block 3");
  }

  @Test
  void aSequentialCursorShouldWrapBeforeAReadWouldPassTheEnd() {
    FileCursor c = cursor(new long[] {4L * BS}, 1, false);
    SubmitterFile f = c.next();
    List<Long> blocks = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      blocks.add(c.offset(f) / BS);
    }
    assertEquals(List.of(0L, 1L, 2L, 3L, 0L, 1L), blocks);
  }

  @Test
  void aDeviceOfOneBlockShouldBeRefusedAsTheToolRefusesIt() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new SubmitterFile(0, BS, BS));
    assertTrue(e.getMessage().startsWith("Zero file/device size?"), e.getMessage());
  }
}

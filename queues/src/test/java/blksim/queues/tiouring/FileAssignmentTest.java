package blksim.queues.tiouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** t/io_uring's threads_per_f assignment (docs/kernel.md section 1.2). */
class FileAssignmentTest {

  @Test
  void oneFileGoesToEveryThread() {
    assertEquals(
        List.of(List.of(0), List.of(0), List.of(0), List.of(0)), FileAssignment.assign(4, 1));
  }

  @Test
  void moreFilesThanThreadsWrapAround() {
    assertEquals(List.of(List.of(0, 2), List.of(1, 3)), FileAssignment.assign(2, 4));
  }

  @Test
  void theFirstFilesGetTheRemainderThreads() {
    // 5 threads, 2 files: threads_per_f 2, one left over, which goes to the first file
    assertEquals(
        List.of(List.of(0), List.of(0), List.of(0), List.of(1), List.of(1)),
        FileAssignment.assign(5, 2));
  }

  @Test
  void moreThanSixteenFilesOnAThreadIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> FileAssignment.assign(1, 17));
  }
}

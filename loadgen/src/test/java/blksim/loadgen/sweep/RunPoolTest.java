package blksim.loadgen.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RunPoolTest {
  @Test
  void resultsComeBackInTheGivenOrderWhateverOrderTheRunsEnd() {
    // the first run cannot end before the second has been heard of: they end out of order
    CountDownLatch secondDone = new CountDownLatch(1);
    List<Integer> ended = Collections.synchronizedList(new ArrayList<>());
    List<RunPool.Done<String>> done =
        new RunPool(2)
            .runAll(
                List.of(0, 1, 2),
                i -> {
                  if (i == 0) {
                    await(secondDone);
                  }
                  return "r" + i;
                },
                d -> {
                  ended.add(d.index());
                  if (d.index() == 1) {
                    secondDone.countDown();
                  }
                });
    assertEquals(List.of("r0", "r1", "r2"), done.stream().map(RunPool.Done::get).toList());
    assertTrue(ended.indexOf(1) < ended.indexOf(0), "ended " + ended);
    assertEquals(3, ended.size());
  }

  @Test
  void neverMoreRunsAtOnceThanSlots() {
    int[] running = {0, 0};
    new RunPool(3)
        .runAll(
            java.util.stream.IntStream.range(0, 24).boxed().toList(),
            i -> {
              synchronized (running) {
                running[0]++;
                running[1] = Math.max(running[1], running[0]);
              }
              Thread.onSpinWait();
              synchronized (running) {
                running[0]--;
              }
              return i;
            });
    assertTrue(running[1] <= 3 && running[1] >= 1, "at most " + running[1]);
  }

  @Test
  void aFailureIsItsRunsAndTheFirstInOrderIsThrown() {
    IllegalArgumentException first = new IllegalArgumentException("first");
    List<RunPool.Done<Integer>> done =
        new RunPool(2)
            .runAll(
                List.of(0, 1, 2),
                i -> {
                  if (i == 0) {
                    return 0;
                  }
                  throw i == 1 ? first : new IllegalStateException("second");
                },
                d -> {});
    assertEquals(0, done.get(0).get());
    assertSame(first, done.get(1).failure());
    IllegalArgumentException thrown =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new RunPool(2)
                    .runAll(
                        List.of(0, 1, 2),
                        i -> {
                          if (i == 0) {
                            return 0;
                          }
                          throw i == 1 ? first : new IllegalStateException("second");
                        }));
    assertSame(first, thrown);
  }

  @Test
  void noSpecificationsNoRuns() {
    assertEquals(List.of(), new RunPool(2).runAll(List.<Integer>of(), i -> i));
    assertThrows(IllegalArgumentException.class, () -> new RunPool(0));
  }

  private static void await(CountDownLatch l) {
    try {
      if (!l.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("the second run never ended");
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}

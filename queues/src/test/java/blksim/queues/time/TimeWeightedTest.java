package blksim.queues.time;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A value held over virtual time (tags in use, a queue's depth): its time-weighted mean over the
 * run from 0, with nothing held before it was first set, and its maximum.
 */
class TimeWeightedTest {
  @Test
  void theMeanShouldWeighEachValueByHowLongItWasHeld() {
    TimeWeighted depth = new TimeWeighted();
    depth.set(100, 4); // nothing before 100
    depth.add(300, -2);
    assertEquals((4 * 200 + 2 * 200) / 500.0, depth.mean(500), 1e-12);
    assertEquals(4, depth.max());
    assertEquals(2, depth.value());
  }

  @Test
  void aValueNeverSetOrARunOfNoTimeShouldHaveAMeanOfNothing() {
    TimeWeighted never = new TimeWeighted();
    assertEquals(0, never.mean(1_000));
    TimeWeighted once = new TimeWeighted();
    once.set(0, 9);
    assertEquals(0, once.mean(0));
    assertEquals(9, once.mean(10), 1e-12, "held from 0 to the end");
  }

  @Test
  void theMaximumShouldBeKeptThoughTheValueFalls() {
    TimeWeighted tags = new TimeWeighted();
    for (int i = 1; i <= 5; i++) {
      tags.add(i * 10, 1);
    }
    tags.set(60, 0);
    assertEquals(5, tags.max());
    assertEquals((1 + 2 + 3 + 4 + 5) * 10 / 100.0, tags.mean(100), 1e-12);
  }
}

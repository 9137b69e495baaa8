package blksim.queues.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EventQueueTest {

  @Test
  void shouldDeliverEarlierTimesFirst() {
    EventQueue q = new EventQueue();
    q.push(30, 3, "c");
    q.push(10, 1, "a");
    q.push(20, 2, "b");
    assertEquals("a", q.pop());
    assertEquals(10, q.lastTimePs());
    assertEquals(1, q.lastTarget());
    assertEquals("b", q.pop());
    assertEquals("c", q.pop());
    assertTrue(q.isEmpty());
  }

  @Test
  void shouldBreakTiesBySequenceInPushOrder() {
    EventQueue q = new EventQueue();
    for (int i = 0; i < 100; i++) {
      q.push(5, i, i);
    }
    q.push(4, -1, "earlier");
    assertEquals("earlier", q.pop());
    for (int i = 0; i < 100; i++) {
      assertEquals(i, q.pop(), "same-time events come out first in, first out");
    }
  }

  @Test
  void shouldMatchASortByTimeThenSequenceForManyRandomEvents() {
    SplittableRandom rnd = new SplittableRandom(42);
    EventQueue q = new EventQueue();
    record E(long time, long seq) {}
    List<E> expected = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      long t = rnd.nextInt(500);
      q.push(t, 0, new E(t, i));
      expected.add(new E(t, i));
      if (i % 7 == 0) {
        // interleave pops with pushes, as a run does
        E e = (E) q.pop();
        E min =
            expected.stream()
                .min(Comparator.comparingLong(E::time).thenComparingLong(E::seq))
                .orElseThrow();
        assertEquals(min, e);
        expected.remove(min);
      }
    }
    expected.sort(Comparator.comparingLong(E::time).thenComparingLong(E::seq));
    for (E e : expected) {
      assertEquals(e, q.pop());
    }
    assertTrue(q.isEmpty());
    assertEquals(10_000, q.pushed());
  }

  @Test
  void shouldRefuseToPopWhenEmpty() {
    assertThrows(IllegalStateException.class, () -> new EventQueue().pop());
  }
}

package blksim.queues.io_uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Contract tests run over both rings, in the spirit of Disruptor's RingBufferTest. */
class RingTest {

  /** The operations both rings share, so one contract covers both. */
  interface TestRing {
    boolean offer(long value);

    Long take();

    long head();

    long tail();
  }

  static TestRing ring(String kind, int entries) {
    if (kind.equals("sq")) {
      SqRing sq = new SqRing(entries);
      return new TestRing() {
        public boolean offer(long v) {
          boolean ok = sq.tryClaim(new Sqe(Sqe.IORING_OP_READ, 0, 0, v, 512, v, 0));
          sq.publish();
          return ok;
        }

        public Long take() {
          Sqe s = sq.consume();
          return s == null ? null : s.userData();
        }

        public long head() {
          return sq.khead();
        }

        public long tail() {
          return sq.ktail();
        }
      };
    }
    CqRing cq = new CqRing(entries);
    return new TestRing() {
      public boolean offer(long v) {
        return cq.tryPost(new Cqe(v, 512, 0));
      }

      public Long take() {
        Cqe c = cq.reap();
        return c == null ? null : c.userData();
      }

      public long head() {
        return cq.khead();
      }

      public long tail() {
        return cq.ktail();
      }
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"sq", "cq"})
  void shouldWrapPastManySequences(String kind) {
    TestRing r = ring(kind, 8);
    for (long i = 0; i < 5000; i++) {
      assertTrue(r.offer(i));
      if (i % 3 == 2) {
        assertTrue(r.offer(-i));
        assertEquals(i, r.take());
        assertEquals(-i, r.take());
      } else {
        assertEquals(i, r.take());
      }
    }
    assertEquals(r.head(), r.tail());
    assertTrue(r.head() > 5000, "sequences run free past the ring size");
  }

  @ParameterizedTest
  @ValueSource(strings = {"sq", "cq"})
  void shouldPreventWrappingWhenFull(String kind) {
    TestRing r = ring(kind, 4);
    for (long i = 0; i < 4; i++) {
      assertTrue(r.offer(i));
    }
    assertFalse(r.offer(99), "a full ring refuses instead of overwriting");
    assertEquals(0L, r.take());
    assertTrue(r.offer(4));
    for (long i = 1; i <= 4; i++) {
      assertEquals(i, r.take());
    }
    assertNull(r.take());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 3, 6, 100, -8})
  void shouldRequirePowerOfTwoEntries(int entries) {
    assertThrows(IllegalArgumentException.class, () -> new SqRing(entries));
    assertThrows(IllegalArgumentException.class, () -> new CqRing(entries));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 32, 4096})
  void shouldAcceptPowerOfTwoEntries(int entries) {
    assertEquals(entries, new SqRing(entries).ringEntries());
    assertEquals(entries, new CqRing(entries).ringEntries());
  }

  @org.junit.jupiter.api.Test
  void shouldCountCqOverflowAndKeepOrderThroughTheOverflowList() {
    SqRing sq = new SqRing(4);
    CqRing cq = new CqRing(2);
    IoRingCtx ctx = new IoRingCtx(sq, cq);
    for (int i = 0; i < 4; i++) {
      sq.tryClaim(new Sqe(Sqe.IORING_OP_READ, 0, 0, 0, 512, i, 0));
    }
    sq.publish();
    for (int i = 0; i < 4; i++) {
      IoKiocb req = ctx.submitSqe();
      ctx.iopollReqIssued(req);
      ctx.completeRwIopoll(req, 512);
    }
    assertEquals(4, ctx.iopollFlushCompleted().posted());
    assertEquals(2, ctx.overflowed(), "two CQEs did not fit and went to the overflow list");
    assertEquals(0, cq.koverflow(), "none was lost");
    assertEquals(0L, cq.reap().userData());
    assertEquals(1L, cq.reap().userData());
    assertEquals(2, ctx.cqEvents(), "flushing the overflow list fills the ring again");
    assertEquals(2L, cq.reap().userData());
    assertEquals(3L, cq.reap().userData());
    assertEquals(0, ctx.cqEvents());
  }

  @org.junit.jupiter.api.Test
  void sqDropShouldCountInKdropped() {
    SqRing sq = new SqRing(2);
    sq.tryClaim(new Sqe(Sqe.IORING_OP_READ, 0, 0, 0, 512, 1, 0));
    sq.publish();
    sq.drop();
    assertEquals(1, sq.kdropped());
    assertEquals(0, sq.pending());
  }
}

package blksim.queues.block.blk_mq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.block.bio.Bio;
import org.junit.jupiter.api.Test;

/** Which hardware queue a bio goes to, and whether a queue polls (docs/kernel.md 5.2). */
class QueueMapTest {
  /** {@code REQ_OP_WRITE}. */
  private static final int REQ_OP_WRITE = 1;

  @Test
  void blkMqGetHctxTypeShouldPutPolledBiosOnPollReadsOnReadAndTheRestOnDefault() {
    assertEquals(HctxType.POLL, HctxType.blkMqGetHctxType(true, Bio.REQ_OP_READ));
    assertEquals(HctxType.POLL, HctxType.blkMqGetHctxType(true, REQ_OP_WRITE));
    assertEquals(HctxType.READ, HctxType.blkMqGetHctxType(false, Bio.REQ_OP_READ));
    assertEquals(HctxType.DEFAULT, HctxType.blkMqGetHctxType(false, REQ_OP_WRITE));
  }

  @Test
  void aPolledBioShouldMapToThePollQueueOfItsCpuAfterTheDefaultQueues() {
    QueueMap m = QueueMap.nullBlk(2, 3);
    for (int cpu = 0; cpu < 8; cpu++) {
      assertEquals(2 + cpu % 3, m.blkMqMapQueue(cpu, true, Bio.REQ_OP_READ), "cpu" + cpu);
    }
  }

  @Test
  void aReadShouldMapToTheDefaultQueuesWhenNoReadQueuesAreMapped() {
    QueueMap m = QueueMap.nullBlk(2, 3);
    for (int cpu = 0; cpu < 8; cpu++) {
      assertEquals(cpu % 2, m.blkMqMapQueue(cpu, false, Bio.REQ_OP_READ), "cpu" + cpu);
    }
  }

  @Test
  void aPolledBioShouldMapToTheDefaultQueuesWithoutPollQueues() {
    QueueMap m = QueueMap.nullBlk(3, 0);
    for (int cpu = 0; cpu < 8; cpu++) {
      assertEquals(cpu % 3, m.blkMqMapQueue(cpu, true, Bio.REQ_OP_READ), "cpu" + cpu);
    }
  }

  @Test
  void queueFlagPollShouldBeSetOnlyWhenTheTagSetMapsPollQueues() {
    assertTrue(QueueMap.nullBlk(1, 1).queueFlagPoll());
    assertFalse(QueueMap.nullBlk(4, 0).queueFlagPoll());
  }
}

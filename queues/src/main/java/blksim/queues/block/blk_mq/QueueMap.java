package blksim.queues.block.blk_mq;

/**
 * Models {@code struct blk_mq_queue_map} as {@code blk_mq_map_queues} (block/blk-mq-cpumap.c,
 * 5.16-6.1) fills it for CPUs without SMT siblings: CPU {@code c} maps to queue {@code queue_offset
 * + c % nr_queues} of its type, and a type without queues falls back to the default map ({@code
 * blk_mq_map_queue}).
 */
public final class QueueMap {
  private final int[] nrQueues = new int[HctxType.values().length];
  private final int[] queueOffset = new int[HctxType.values().length];

  /** null_blk's map ({@code null_map_queues}): default queues first, then poll queues. */
  public static QueueMap nullBlk(int submitQueues, int pollQueues) {
    QueueMap m = new QueueMap();
    m.nrQueues[HctxType.DEFAULT.ordinal()] = submitQueues;
    m.queueOffset[HctxType.POLL.ordinal()] = submitQueues;
    m.nrQueues[HctxType.POLL.ordinal()] = pollQueues;
    return m;
  }

  /** {@code blk_mq_map_queue}: the hardware queue index for {@code cpu} and {@code type}. */
  public int mapQueue(int cpu, HctxType type) {
    HctxType t = nrQueues[type.ordinal()] == 0 ? HctxType.DEFAULT : type;
    return queueOffset[t.ordinal()] + cpu % nrQueues[t.ordinal()];
  }

  /**
   * {@code blk_mq_map_queue(q, opf, ctx)} (block/blk-mq.h): the hardware queue a bio of {@code op}
   * submitted on {@code cpu} goes to, of the type {@link HctxType#blkMqGetHctxType} gives it
   * (docs/kernel.md 5.2).
   *
   * @param polled the bio's {@code REQ_POLLED}
   */
  public int blkMqMapQueue(int cpu, boolean polled, int op) {
    return mapQueue(cpu, HctxType.blkMqGetHctxType(polled, op));
  }

  /**
   * {@code QUEUE_FLAG_POLL} of a queue on this map: set when the tag set maps poll queues ({@code
   * set->nr_maps > HCTX_TYPE_POLL && set->map[HCTX_TYPE_POLL].nr_queues}, {@code
   * blk_mq_init_allocated_queue}, block/blk-mq.c, 5.16). Without it {@code submit_bio_noacct}
   * clears a bio's {@code REQ_POLLED} (docs/kernel.md 5.2).
   */
  public boolean queueFlagPoll() {
    return nrQueues(HctxType.POLL) > 0;
  }

  /** Hardware queues of all types: the tag set's {@code nr_hw_queues}. */
  public int nrHwQueues() {
    int n = 0;
    for (int q : nrQueues) {
      n += q;
    }
    return n;
  }

  public int nrQueues(HctxType type) {
    return nrQueues[type.ordinal()];
  }
}

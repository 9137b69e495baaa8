package blksim.actors.topology;

import blksim.actors.block.Disk;
import blksim.actors.cpu.CpuConfig;
import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.Limit;
import blksim.config.NullBlkSettings;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What of {@code t/io_uring -a1} (libaio) blksim runs: reads whose requests end in {@code queue_rq}
 * (irqmode 0 or 1), so that each event is in the ring before {@code io_submit} returns. Where a
 * task would sleep, or an interrupt complete an aio read, the case is refused by name.
 */
final class AioSupport {
  private AioSupport() {}

  /** The settings alone; -S1 wins over -a1, as in t/io_uring. */
  static void check(BlksimSettings s) {
    IoUringSettings u = s.ioUring();
    if (!u.aio() || u.syncIo()) {
      return;
    }
    SyncSupport.outsideTheRing(s, "-a1", "aio", "an aio read");
  }

  /**
   * What the threads hold of each hardware queue's tags: with irqmode 0 or 1 each request ends in
   * queue_rq as the plug is flushed, so a thread holds one io_submit's batch at most ({@code -s});
   * with timers, all it has in flight. A bio without REQ_NOWAIT that finds no tag sleeps in
   * blk_mq_get_tag: modelled with timers and no scheduler, refused otherwise.
   */
  static void checkQueues(BlksimSettings s, List<Integer> cpus, List<CpuConfig> cfgs) {
    IoUringSettings u = s.ioUring();
    if (!u.aio() || u.syncIo()) {
      return;
    }
    int tags = TagBudget.allocTags(s);
    // a timer (irqmode=2) keeps each tag until it fires: all the thread has in flight
    boolean timer = s.nullBlk().irqmode() == NullBlkSettings.IrqMode.TIMER;
    int held = timer ? u.depth() : Math.min(u.depth(), Math.max(1, u.batchSubmit()));
    Map<String, Integer> load = new TreeMap<>();
    for (int t = 0; t < cfgs.size(); t++) {
      Map<String, Integer> mine = new TreeMap<>();
      for (Disk disk : cfgs.get(t).files()) {
        disk.hwQueues(cpus.get(t), false).forEach(h -> mine.put(h, held));
      }
      mine.forEach((h, n) -> load.merge(h, n, Integer::sum));
    }
    // with timers io_submit sleeps in blk_mq_get_tag until a timer's end frees a tag (HwCtxActor);
    // not modelled: a sleep whose flushed plug ends requests in queue_rq, and mq-deadline's
    boolean mqDeadline = blksim.config.Elevator.of(s).mqDeadline();
    for (Map.Entry<String, Integer> e : load.entrySet()) {
      Limit.AIO_TAG_SLEEP.refuseIf(
          e.getValue() > tags && (!timer || mqDeadline),
          "-a1 with "
              + e.getValue()
              + " requests at once on "
              + e.getKey()
              + " of "
              + tags
              + " tags: io_submit sleeping for a tag"
              + (mqDeadline ? " under mq-deadline" : " while its requests end in queue_rq"));
    }
  }
}

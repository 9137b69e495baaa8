package blksim.actors.topology;

import blksim.actors.block.Disk;
import blksim.actors.cpu.CpuConfig;
import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.Limit;
import blksim.config.NullBlkSettings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What of {@code t/io_uring -S1} (preadv2, one read at a time per thread) blksim runs: a read whose
 * bio ends in {@code queue_rq} (irqmode 0 or 1) or by its timer (irqmode 2, the task sleeping until
 * the interrupt), or that a poll ends (its own thread's, or another's on a poll queue they share,
 * which wakes it). A read that finds no tag sleeps in {@code blk_mq_get_tag} until a freed tag
 * wakes it; under mq-deadline, where it would wait for a sched tag, the case is refused by name.
 */
final class SyncSupport {
  private SyncSupport() {}

  /** The settings alone. */
  static void check(BlksimSettings s) {
    IoUringSettings u = s.ioUring();
    if (!u.syncIo()) {
      return;
    }
    outsideTheRing(s, "-S1", "sync", "a sync read");
  }

  /**
   * What a loop other than io_uring's ({@code flag}: -S1, -a1) does not run yet: the files -N1 does
   * not open, buffered reads, DM, faults.
   */
  static void outsideTheRing(BlksimSettings s, String flag, String loop, String read) {
    IoUringSettings u = s.ioUring();
    NullBlkSettings n = s.nullBlk();
    Limit.OUTSIDE_RING_NOP.refuseIf(
        u.nop(),
        flag
            + " with -N1: t/io_uring's "
            + loop
            + " loop reading the files that -N1 does not open");
    Limit.OUTSIDE_RING_BUFFERED.refuseIf(
        !u.oDirect(), flag + " -O0: buffered reads through the page cache");
    Limit.OUTSIDE_RING_DM.refuseIf(
        u.files().stream().anyMatch(f -> ModelSupport.DM.matcher(f).matches()),
        flag + " on a DM device: " + read + " through device mapper");
    Limit.OUTSIDE_RING_FAULT.refuseIf(
        n.timeout().enabled() || n.requeue().enabled(),
        flag + " with a fault injected (timeout=, requeue=): " + read + " waiting out its fault");
  }

  /**
   * More threads on a queue than tags under mq-deadline: a sync read has no REQ_NOWAIT, and would
   * sleep for a sched tag, which is not modelled. Without a scheduler it sleeps for a driver tag.
   */
  static void checkQueues(BlksimSettings s, List<Integer> cpus, List<CpuConfig> cfgs) {
    if (!s.ioUring().syncIo() || !blksim.config.Elevator.of(s).mqDeadline()) {
      return;
    }
    int tags = TagBudget.allocTags(s);
    Map<String, Integer> threads = new TreeMap<>();
    for (int t = 0; t < cfgs.size(); t++) {
      CpuConfig cfg = cfgs.get(t);
      Set<String> mine = new TreeSet<>();
      for (Disk disk : cfg.files()) {
        mine.addAll(disk.hwQueues(cpus.get(t), cfg.hipri() && disk.pollsBlkMq()));
      }
      for (String h : mine) {
        threads.merge(h, 1, Integer::sum);
      }
    }
    for (Map.Entry<String, Integer> e : threads.entrySet()) {
      Limit.SYNC_SCHED_TAGS.refuseIf(
          e.getValue() > tags,
          "-S1 with "
              + e.getValue()
              + " threads on "
              + e.getKey()
              + " of "
              + tags
              + " sched tags: a sync read sleeping for a tag under mq-deadline");
    }
  }
}

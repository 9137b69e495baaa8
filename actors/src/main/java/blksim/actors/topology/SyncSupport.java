package blksim.actors.topology;

import blksim.actors.block.Disk;
import blksim.actors.cpu.CpuConfig;
import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.NullBlkSettings;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What of {@code t/io_uring -S1} (preadv2, one read at a time per thread) blksim runs: a read whose
 * bio ends in {@code queue_rq} (irqmode 0 or 1) or by its timer (irqmode 2, the task sleeping until
 * the interrupt), or that its own thread polls on a poll queue. Where the task would sleep for a
 * tag, or be woken by another thread's poll, the case is refused by name.
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
    ModelSupport.unsupported(
        u.nop(),
        flag
            + " with -N1: t/io_uring's "
            + loop
            + " loop reading the files that -N1 does not open");
    ModelSupport.unsupported(!u.oDirect(), flag + " -O0: buffered reads through the page cache");
    ModelSupport.unsupported(
        u.files().stream().anyMatch(f -> ModelSupport.DM.matcher(f).matches()),
        flag + " on a DM device: " + read + " through device mapper");
    ModelSupport.unsupported(
        n.timeout().enabled() || n.requeue().enabled(),
        flag + " with a fault injected (timeout=, requeue=): " + read + " waiting out its fault");
  }

  /**
   * The threads' queues: each poll queue polled by one thread only (another's poll would end its
   * bio and wake it from blk_io_schedule), and no queue with more threads than tags (a read without
   * REQ_NOWAIT would sleep for one).
   */
  static void checkQueues(BlksimSettings s, List<Integer> cpus, List<CpuConfig> cfgs) {
    if (!s.ioUring().syncIo()) {
      return;
    }
    int tags = s.nullBlk().hwQueueDepth();
    Map<String, Integer> threads = new TreeMap<>();
    Map<String, Boolean> polledQueue = new TreeMap<>();
    for (int t = 0; t < cfgs.size(); t++) {
      CpuConfig cfg = cfgs.get(t);
      Map<String, Boolean> mine = new TreeMap<>();
      for (Disk disk : cfg.files()) {
        boolean polled = cfg.hipri() && disk.pollsBlkMq();
        disk.hwQueues(cpus.get(t), polled).forEach(h -> mine.put(h, polled));
      }
      for (Map.Entry<String, Boolean> e : mine.entrySet()) {
        threads.merge(e.getKey(), 1, Integer::sum);
        polledQueue.put(e.getKey(), e.getValue());
      }
    }
    for (Map.Entry<String, Integer> e : threads.entrySet()) {
      String h = e.getKey();
      int n = e.getValue();
      ModelSupport.unsupported(
          polledQueue.get(h) && n > 1,
          "-S1 -p1 with "
              + n
              + " threads polling "
              + h
              + ": a sync read whose bio another thread's poll ends, woken from blk_io_schedule");
      ModelSupport.unsupported(
          n > tags,
          "-S1 with "
              + n
              + " threads on "
              + h
              + " of "
              + tags
              + " tags: a sync read sleeping for a tag");
    }
  }
}

package blksim.actors.topology;

import blksim.actors.block.Disk;
import blksim.actors.cpu.CpuConfig;
import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.Limit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where each thread's io-wq worker runs when tags can run out: the CPUs with no submitter go to the
 * first threads' workers, and the others share their thread's CPU (the scheduler wakes a worker on
 * an idle CPU of the node, or on the waker's).
 *
 * <p>A blocking issue (a ring without IOPOLL) sleeps for its tag. On an IOPOLL ring the worker's
 * issue keeps REQ_NOWAIT, and on the thread's CPU it spins until its CFS slice ends, a tag is freed
 * or the CPU takes an interrupt ({@code WorkerSpin}); under a DM device, whose requeue frees what
 * it spins for, that is not modelled yet.
 */
final class SharedWorkers {
  private SharedWorkers() {}

  /**
   * @param load the most I/Os each hardware queue can have in flight
   * @param tags the tags of a queue
   * @param why what makes tags run out, for a refusal
   */
  static List<Integer> place(
      BlksimSettings s,
      ModelSupport.Placement plan,
      List<CpuConfig> cfgs,
      Map<String, Integer> load,
      int tags,
      String why) {
    IoUringSettings u = s.ioUring();
    List<Integer> cpus = new ArrayList<>();
    for (int cpu = 0; cpu < s.cpu().count() && cpus.size() < u.threads(); cpu++) {
      if (!plan.submitterCpus().contains(cpu)) {
        cpus.add(cpu);
      }
    }
    for (int t = cpus.size(); t < u.threads(); t++) {
      if (u.polled()) {
        spinsAlone(plan, cfgs.get(t), t, load, tags, why);
      }
      cpus.add(plan.submitterCpus().get(t));
    }
    return cpus;
  }

  private static List<String> queues(ModelSupport.Placement plan, CpuConfig cfg, int t) {
    List<String> all = new ArrayList<>();
    for (Disk disk : cfg.files()) {
      all.addAll(disk.hwQueues(plan.submitterCpus().get(t), cfg.iopoll()));
    }
    return all;
  }

  /** Refuses a spinning worker on thread {@code t}'s CPU under a DM device. */
  private static void spinsAlone(
      ModelSupport.Placement plan,
      CpuConfig cfg,
      int t,
      Map<String, Integer> load,
      int tags,
      String why) {
    List<String> mine = queues(plan, cfg, t);
    if (mine.stream().noneMatch(h -> load.get(h) > tags)) {
      return; // its tags never run out: the worker never runs
    }
    if (cfg.files().stream().anyMatch(Disk::isBioBased)) {
      throw Limit.IO_WQ_SPIN.refusal(
          why
              + ": thread "
              + t
              + "'s io-wq worker, with no CPU left, would spin for a tag on the thread's CPU"
              + " where it reads a DM device; that wait is not modelled yet; give the machine more"
              + " CPUs with --cpus, or raise hw_queue_depth with --null-blk");
    }
  }
}

package blksim.actors.topology;

import blksim.actors.block.Disk;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.block.blk_mq.HwCtxActor;
import blksim.actors.cpu.Cpu;
import blksim.actors.cpu.CpuConfig;
import blksim.actors.cpu.DmSetup;
import blksim.actors.cpu.IoWqWorker;
import blksim.actors.cpu.SubmitterThread;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.actors.engine.Engine;
import blksim.actors.engine.Interruption;
import blksim.actors.engine.Registry;
import blksim.actors.engine.RunAborted;
import blksim.actors.engine.SimRef;
import blksim.actors.tiouring.MainThread;
import blksim.actors.tiouring.StatusSink;
import blksim.config.BlksimSettings;
import blksim.config.Elevator;
import blksim.config.IoUringSettings;
import blksim.config.NullBlkSettings;
import blksim.config.Patch;
import blksim.devices.drivers.null_blk.FaultInjection;
import blksim.devices.drivers.null_blk.NullBlk;
import blksim.queues.block.bio.BioSet;
import blksim.queues.block.blk_mq.HctxFeatures;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.books.Books;
import blksim.queues.cost.CallFactors;
import blksim.queues.cost.CallVariation;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.PathCosts;
import blksim.queues.io_uring.CqRing;
import blksim.queues.io_uring.IoRingCtx;
import blksim.queues.io_uring.SqRing;
import blksim.queues.kernel.sched.SchedEntity;
import blksim.queues.kernel.sched.TickSched;
import blksim.queues.random.RandomStreams;
import blksim.queues.time.VirtualTime;
import blksim.queues.tiouring.Submitter;
import blksim.queues.tiouring.SubmitterFn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The components of one run, built from its settings and wired together: t/io_uring's main thread,
 * one CPU per submitter, the bioset of raw block device I/O, one actor per hardware queue of the
 * null_blk device, the device itself, and the device-mapper devices stacked on it.
 */
public final class Topology {
  private final Registry registry = new Registry();
  private final List<Cpu> cpus = new ArrayList<>();
  private final List<IoWqWorker> workers = new ArrayList<>();
  private final List<HwCtxActor> hctxs = new ArrayList<>();
  private final BioSetActor bioset;
  private final List<NullBlkActor> devices = new ArrayList<>();
  private final DmStack dms;
  private final List<DmSetup> dmsetups = new ArrayList<>();

  private Topology(BlksimSettings s, StatusSink sink) {
    ModelSupport.Placement plan = ModelSupport.check(s);
    IoUringSettings u = s.ioUring();
    SubmitterFn engine = SubmitterFn.of(u);
    boolean ring = engine.ring();
    NullBlkSettings nb = plan.nullBlk();
    int nrCpus = s.cpu().count();
    PathCosts costs =
        PathCosts.of(
            s.profile(),
            s.kernel(),
            new PathCosts.Knobs(
                // -S1 and -a1: no ring to register, no registered file or buffer
                u.registerRing() && s.kernel().registerRingFds() && ring,
                u.registerFiles() && ring,
                engine.fixedBuffers(u),
                SubmitterFn.pagesPerIo(u),
                engine.nrVecs(u) > s.bioset().bioInlineVecs(),
                u.nop()),
            s.interference().variation()
                ? new CallVariation.Spec(
                    s.run().seed(), CallFactors.lognormal(s.interference().cv()))
                : CallVariation.Spec.NONE);

    SimRef<MainThread.Command> mainRef = registry.reserve("t_io_uring");
    // one CPU actor for each CPU a thread runs on, made in the order the threads first name them;
    // each thread's ring is named by its CPU, or, after the first on a CPU, by a number of its own
    List<SimRef<Cpu.Command>> cpuRefs = new ArrayList<>();
    Map<Integer, SimRef<Cpu.Command>> cpuById = new TreeMap<>();
    Map<Integer, SimRef<Cpu.Command>> rings = new TreeMap<>();
    List<Integer> slots = new ArrayList<>();
    List<Integer> owners = new ArrayList<>();
    Map<Integer, Integer> onCpu = new TreeMap<>();
    for (int cpu : plan.submitterCpus()) {
      SimRef<Cpu.Command> ref = cpuById.get(cpu);
      if (ref == null) {
        ref = registry.reserve("cpu" + cpu);
        cpuById.put(cpu, ref);
      }
      cpuRefs.add(ref);
      int slot = onCpu.merge(cpu, 1, Integer::sum) - 1;
      slots.add(slot);
      owners.add(cpu + nrCpus * slot);
      rings.put(cpu + nrCpus * slot, ref);
    }
    SimRef<BioSetActor.Command> biosetRef = registry.reserve("blkdev_dio_pool");
    List<NullBlk> nullbs = new ArrayList<>();
    List<SimRef<HwCtxActor.Command>> hctxRefs = new ArrayList<>();
    List<SimRef<NullBlkActor.Command>> deviceRefs = new ArrayList<>();
    for (int d = 0; d < nb.nrDevices(); d++) {
      NullBlk nullb = new NullBlk(d, nb, costs.shortLockHoldPs(), costs.lineTransferPs());
      if (nb.requeue().enabled()) {
        String owner = nullb.diskName() + "-requeue-cpu";
        nullb.injectRequeues(
            new FaultInjection(
                nb.requeue(), cpu -> RandomStreams.of(s.run().seed(), owner + cpu), nrCpus));
      }
      if (nb.timeout().enabled()) {
        String owner = nullb.diskName() + "-timeout-cpu";
        nullb.injectTimeouts(
            new FaultInjection(
                nb.timeout(), cpu -> RandomStreams.of(s.run().seed(), owner + cpu), nrCpus));
      }
      nullbs.add(nullb);
      for (int h = 0; h < nullb.nrHwQueues(); h++) {
        hctxRefs.add(registry.reserve(nullb.diskName() + "-hctx" + h));
      }
      deviceRefs.add(registry.reserve(nullb.diskName()));
    }

    HctxFeatures features =
        new HctxFeatures(
            s.kernel().has(Patch.PLUG_BATCH_ALLOC),
            s.kernel().has(Patch.NULL_POLL_BATCH),
            s.kernel().iostats(),
            s.kernel().nomerges(),
            nb.endsInQueueRq());
    Map<String, Disk> disks = new TreeMap<>();
    Elevator elevator = Elevator.of(s);
    boolean mqDeadline = elevator.mqDeadline();
    Elevator.Tags tags = elevator.tags(s);
    for (int d = 0; d < nullbs.size(); d++) {
      NullBlk nullb = nullbs.get(d);
      int offset = d * nullb.nrHwQueues();
      List<SimRef<HwCtxActor.Command>> queueRefs =
          hctxRefs.subList(offset, offset + nullb.nrHwQueues());
      NullBlkActor device =
          new NullBlkActor(
              nullb,
              deviceRefs.get(d),
              queueRefs.stream().map(r -> r.adapt(HwCtxActor.FromDriver::new)).toList(),
              costs);
      devices.add(device);
      registry.bind(deviceRefs.get(d), device);
      for (int h = 0; h < nullb.nrHwQueues(); h++) {
        SimRef<HwCtxActor.Command> ref = queueRefs.get(h);
        HwCtx ctx =
            new HwCtx(
                h,
                nullb.hctxType(h),
                tags.nrTags(),
                tags.mapDepth(),
                nrCpus,
                RandomStreams.of(s.run().seed(), nullb.diskName() + "-hctx" + h + "-sbitmap"),
                mqDeadline ? nb.hwQueueDepth() : 0);
        HwCtxActor q = new HwCtxActor(ref, ctx, deviceRefs.get(d), costs, s.books(), features);
        hctxs.add(q);
        registry.bind(ref, q);
      }
      disks.put(
          "/dev/" + nullb.diskName(),
          Disk.blkMq(
              nullb.diskName(),
              nullb.sizeBytes(),
              nullb.queueMap(),
              queueRefs.stream().map(r -> r.adapt(HwCtxActor.FromUpper::new)).toList()));
    }
    bioset =
        new BioSetActor(
            "blkdev_dio_pool",
            new BioSet(
                "blkdev_dio_pool", s.bioset(), nrCpus, s.kernel().has(Patch.BIO_CACHE_IRQ_LIST)),
            costs,
            s.books().breakOnPurpose());
    registry.bind(biosetRef, bioset);
    dms = new DmStack(s, registry, disks, nb.pollQueues() > 0, costs);
    List<CpuConfig> cfgs = new ArrayList<>();
    for (int t = 0; t < u.threads(); t++) {
      List<Disk> files = new ArrayList<>();
      for (int f : plan.submitterFiles().get(t)) {
        files.add(disks.get(u.files().get(f)));
      }
      cfgs.add(CpuConfig.of(s, t, files));
    }
    ModelSupport.checkQueues(s, plan.submitterCpus(), cfgs);
    List<Integer> workerCpus = ModelSupport.workerCpus(s, plan, cfgs);
    // a worker with a CPU of its own runs on a CPU actor of its own; one with no CPU left runs on
    // its submitter's, as a task beside the thread (ModelSupport.workerCpus)
    List<SimRef<Cpu.Command>> workerRefs = new ArrayList<>();
    Map<Integer, List<Cpu.WorkerLinks>> workersOf = new TreeMap<>();
    for (int t = 0; t < workerCpus.size(); t++) {
      int w = workerCpus.get(t);
      int cpuId = plan.submitterCpus().get(t);
      SimRef<Cpu.Command> ref = cpuById.get(w);
      if (ref == null) {
        ref = registry.reserve("cpu" + w);
        cpuById.put(w, ref);
      }
      workerRefs.add(ref);
      workersOf
          .computeIfAbsent(w, k -> new ArrayList<>())
          .add(new Cpu.WorkerLinks(t, owners.get(t), cfgs.get(t), w == cpuId));
    }
    Map<Integer, List<Cpu.TaskLinks>> threadsOf = new java.util.LinkedHashMap<>();
    for (int t = 0; t < u.threads(); t++) {
      int cpuId = plan.submitterCpus().get(t);
      CpuConfig cfg = cfgs.get(t);
      long[] sizes = new long[cfg.files().size()];
      for (int f = 0; f < sizes.length; f++) {
        sizes[f] = cfg.disk(f).sizeBytes();
      }
      SqRing sq = new SqRing(u.sqRingEntries());
      CqRing cq = new CqRing(u.cqRingEntries());
      Submitter sub =
          new Submitter(
              new Submitter.Config(
                  u.depth(),
                  u.batchSubmit(),
                  u.batchComplete(),
                  u.blockSize(),
                  u.fixedBuffers(),
                  u.registerFiles(),
                  u.vectored(),
                  u.randomIo(),
                  u.polled(),
                  u.nop()),
              sq,
              cq,
              sizes,
              RandomStreams.of(s.run().seed(), "submitter" + t));
      SimRef<Cpu.Command> workerRef = workerRefs.isEmpty() ? null : workerRefs.get(t);
      threadsOf
          .computeIfAbsent(cpuId, k -> new ArrayList<>())
          .add(
              new Cpu.TaskLinks(
                  slots.get(t), sub, new IoRingCtx(sq, cq, owners.get(t)), cfg, workerRef));
    }
    // dmsetup processes go after the threads and workers of their CPU (ModelSupport.dmsetupCpu)
    int dmsetupCpu = ModelSupport.dmsetupCpu(s, plan, workerCpus);
    List<String> suspended = DmStack.suspended(s);
    int dmsetupSlot =
        threadsOf.getOrDefault(dmsetupCpu, List.of()).size()
            + workersOf.getOrDefault(dmsetupCpu, List.of()).size();
    Map<Integer, List<Cpu.DmSetupLinks>> dmsetupsOf = new TreeMap<>();
    for (int i = 0; i < suspended.size(); i++) {
      dmsetupsOf
          .computeIfAbsent(dmsetupCpu, k -> new ArrayList<>())
          .add(new Cpu.DmSetupLinks(dmsetupSlot + i, suspended.get(i)));
    }
    // one CPU actor per CPU that runs a task, bound at its address
    CpuFactory newCpu =
        (id, ref, threads, workers, dmsetups) -> {
          Cpu cpu =
              new Cpu(
                  id,
                  new Cpu.Links(
                      ref, biosetRef, mainRef.adapt(MainThread.FromCpu::new), rings, dms.refs()),
                  threads,
                  workers,
                  dmsetups,
                  costs,
                  nrCpus,
                  TickSched.schedTick(s));
          registry.bind(ref, cpu);
          return cpu;
        };
    for (Map.Entry<Integer, List<Cpu.TaskLinks>> e : threadsOf.entrySet()) {
      int cpuId = e.getKey();
      SimRef<Cpu.Command> ref = cpuById.get(cpuId);
      cpus.add(
          newCpu.make(
              cpuId,
              ref,
              e.getValue(),
              workersOf.getOrDefault(cpuId, List.of()),
              dmsetupsOf.getOrDefault(cpuId, List.of())));
      registry.initial(ref, new Cpu.Start(0));
      TickSched tick = TickSched.first(s, cpuId, nrCpus);
      if (tick != null) {
        registry.initial(ref, new Cpu.Tick(tick));
      }
    }
    List<Cpu> workerCpusAlone = new ArrayList<>();
    for (Map.Entry<Integer, List<Cpu.WorkerLinks>> e : workersOf.entrySet()) {
      int w = e.getKey();
      if (threadsOf.containsKey(w)) {
        continue; // those beside their threads are tasks of the threads' CPU
      }
      workerCpusAlone.add(
          newCpu.make(
              w, cpuById.get(w), List.of(), e.getValue(), dmsetupsOf.getOrDefault(w, List.of())));
    }
    if (!suspended.isEmpty()
        && !threadsOf.containsKey(dmsetupCpu)
        && !workersOf.containsKey(dmsetupCpu)) {
      // a CPU that runs dmsetup alone
      SimRef<Cpu.Command> ref = registry.reserve("cpu" + dmsetupCpu);
      cpuById.put(dmsetupCpu, ref);
      workerCpusAlone.add(
          newCpu.make(dmsetupCpu, ref, List.of(), List.of(), dmsetupsOf.get(dmsetupCpu)));
    }
    // the workers in thread order, for the books and the report
    List<Cpu> all = new ArrayList<>(cpus);
    all.addAll(workerCpusAlone);
    for (Cpu cpu : all) {
      workers.addAll(cpu.workers());
    }
    workers.sort(java.util.Comparator.comparingInt(IoWqWorker::thread));
    cpus.addAll(workerCpusAlone);
    for (Cpu cpu : cpus) {
      dmsetups.addAll(cpu.dmsetups());
    }
    if (!suspended.isEmpty()) {
      DmStack.commands(s, registry, cpuById.get(dmsetupCpu), dmsetupSlot);
    }
    registry.bind(
        mainRef,
        new MainThread(
            mainRef,
            cpuRefs,
            VirtualTime.ps(s.run().statusIntervalNs()),
            VirtualTime.ps(s.run().runtimeNs()),
            sink));
    registry.initial(mainRef, new MainThread.Start(0));
    registry.onInterrupt(mainRef, MainThread.Interrupted::new);
  }

  /** Makes the CPU actor {@code id} with its tasks and binds it at {@code ref}. */
  @FunctionalInterface
  private interface CpuFactory {
    Cpu make(
        int id,
        SimRef<Cpu.Command> ref,
        List<Cpu.TaskLinks> threads,
        List<Cpu.WorkerLinks> workers,
        List<Cpu.DmSetupLinks> dmsetups);
  }

  /**
   * Builds the run of {@code settings}.
   *
   * @throws blksim.config.ConfigError if the settings ask for what is not modelled
   */
  public static Topology build(BlksimSettings settings, StatusSink sink) {
    return new Topology(settings, sink);
  }

  public Registry registry() {
    return registry;
  }

  /**
   * Runs on {@code engine} and gathers the result.
   *
   * @throws RunFailed if the run ended early, with what it had done by then
   */
  public RunResult run(Engine engine) {
    Engine.EngineRun run;
    try {
      run = engine.run(registry);
    } catch (RunAborted e) {
      throw new RunFailed(e, gather(new Engine.EngineRun(Math.max(0, e.atPs()), -1)));
    }
    return gather(run);
  }

  /** What the components hold: the result of a run, or of the part of one that ran. */
  private RunResult gather(Engine.EngineRun run) {
    // an interrupted run ends when its submitters have drained, not at the main thread's next tick;
    // one whose drain was cut ends where it was cut, with its I/Os in flight in its books
    Interruption stop = registry.interruption();
    long endPs =
        stop.cut() ? stop.cutAtPs() : stop.delivered() ? stop.deliveredAtPs() : run.endPs();
    List<SubmitterThread> tasks = new ArrayList<>();
    cpus.forEach(cpu -> tasks.addAll(cpu.threads()));
    tasks.sort(java.util.Comparator.comparingInt(SubmitterThread::submitterIndex));
    for (SubmitterThread task : tasks) {
      endPs = Math.max(endPs, Math.max(task.exitedAtPs(), task.freeAtPs()));
    }
    for (IoWqWorker w : workers) {
      endPs = Math.max(endPs, w.freeAtPs());
    }
    Histogram latency = new Histogram(3);
    CostLedger ledger = new CostLedger();
    Books books = stop.cut() ? Books.cutShort() : new Books();
    List<RunResult.Submitter> subs = new ArrayList<>();
    for (SubmitterThread task : tasks) {
      subs.add(submitterTotals(task, endPs));
      latency.add(task.latencyNs());
    }
    for (Cpu cpu : cpus) {
      ledger.merge(cpu.ledger());
      cpu.audit(books);
    }
    ledger.merge(bioset.ledger());
    bioset.bioSet().audit(books);
    List<RunResult.Hctx> depths = new ArrayList<>();
    for (HwCtxActor q : hctxs) {
      ledger.merge(q.ledger());
      q.audit(books);
      if (q.hctx().dispatchedCount() > 0) {
        depths.add(hctxTotals(q, stop.delivered() ? endPs : run.endPs()));
      }
    }
    List<RunResult.Worker> ws = new ArrayList<>();
    for (int t = 0; t < workers.size(); t++) {
      IoWqWorker w = workers.get(t);
      ledger.merge(w.ledger());
      w.audit(books);
      ws.add(workerTotals(t, w));
    }
    for (NullBlkActor device : devices) {
      ledger.merge(device.ledger());
      device.nullBlk().audit(books);
    }
    dms.mergeInto(ledger);
    dms.audit(books);
    for (DmSetup d : dmsetups) {
      ledger.merge(d.ledger());
      d.audit(books);
    }
    BioSet set = bioset.bioSet();
    return new RunResult(
        endPs,
        run.messages(),
        subs,
        latency,
        ledger,
        new RunResult.BioCache(
            set.cacheHits(), set.mempoolAllocs(), set.pruned(), set.freedUncached()),
        depths,
        ws,
        dms.results(dmsetups),
        books);
  }

  /** The totals of the submitter {@code task}, its mean in flight up to {@code endPs}. */
  private static RunResult.Submitter submitterTotals(SubmitterThread task, long endPs) {
    Submitter sub = task.submitter();
    SchedEntity se = task.sched();
    return new RunResult.Submitter(
        task.submitterIndex(),
        task.cpu(),
        sub.done(),
        sub.calls(),
        sub.reaps(),
        task.completed(),
        task.ring().droppedAtExit(),
        sub.fatal(),
        sub.meanInFlight(endPs),
        sub.inFlightAtEnd(),
        task.accepted(),
        sub.hung(),
        task.latencyNs().copy(),
        schedInfo(se));
  }

  /** The depth of {@code q}, its mean tags in use up to {@code untilPs}. */
  private static RunResult.Hctx hctxTotals(HwCtxActor q, long untilPs) {
    HwCtx h = q.hctx();
    return new RunResult.Hctx(
        q.name(),
        h.inUse().mean(untilPs),
        h.inUse().max(),
        h.tags().nrTags(),
        h.dispatchedCount(),
        h.noTagCount() - q.tagSleeps(),
        q.tagSleeps(),
        h.busyCount(),
        h.requeueCount(),
        h.mergedCount(),
        q.sched() == null
            ? null
            : new RunResult.Sched(
                q.sched().driverTags(),
                q.sched().lockTaken(),
                q.sched().lockSpun(),
                q.sched().lockWaitPs(),
                q.sched().waited(),
                q.sched().restarts()));
  }

  /** The totals of thread {@code t}'s io-wq worker {@code w}. */
  private static RunResult.Worker workerTotals(int t, IoWqWorker w) {
    return new RunResult.Worker(
        t,
        w.cpu(),
        w.wq().enqueued(),
        w.wq().retries(),
        w.wq().wakeUps(),
        w.lockWaitPs(),
        w.tagSleeps(),
        w.spinSlices(),
        w.spinsEndedByTag(),
        w.spunPs(),
        schedInfo(w.sched()));
  }

  /** What a task ran and waited on its run queue; zeros for one that never joined it. */
  static RunResult.SchedInfo schedInfo(SchedEntity se) {
    return se == null
        ? new RunResult.SchedInfo(0, 0, 0, 0)
        : new RunResult.SchedInfo(se.sumExecRuntime(), se.runDelay(), se.nvcsw(), se.nivcsw());
  }
}

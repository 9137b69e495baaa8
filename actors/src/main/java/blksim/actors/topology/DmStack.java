package blksim.actors.topology;

import blksim.actors.block.Disk;
import blksim.actors.block.bio.BioSetActor;
import blksim.actors.cpu.Cpu;
import blksim.actors.cpu.DmSetup;
import blksim.actors.drivers.md.MappedDeviceActor;
import blksim.actors.engine.Registry;
import blksim.actors.engine.SimRef;
import blksim.config.BioSetSettings;
import blksim.config.BlksimSettings;
import blksim.config.DmSettings;
import blksim.config.DmTable;
import blksim.config.Patch;
import blksim.devices.drivers.md.MappedDevice;
import blksim.queues.block.bio.BioSet;
import blksim.queues.books.Books;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.PathCosts;
import blksim.queues.time.VirtualTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The device-mapper devices of a run, each created from its table over the null_blk disks: the
 * device's actor, its {@code io_bs} and its disk. {@code md->bs}, which only serves the extra
 * clones of a bio split across targets, is not built: such splits are refused.
 */
final class DmStack {
  /** RESERVED_BIO_BASED_IOS (drivers/md/dm.c): the mempool reserve of a bio-based io_bs. */
  static final int RESERVED_BIO_BASED_IOS = 16;

  private final List<MappedDeviceActor> devices = new ArrayList<>();
  private final List<BioSetActor> ioBs = new ArrayList<>();
  private final Map<String, SimRef<MappedDeviceActor.Command>> refs = new TreeMap<>();

  /**
   * Builds every table's device and adds its disk, {@code /dev/dm-N}, to {@code disks}.
   *
   * @param supportsPoll whether the null_blk disks poll (poll_queues > 0)
   */
  DmStack(
      BlksimSettings s,
      Registry registry,
      Map<String, Disk> disks,
      boolean supportsPoll,
      PathCosts costs) {
    List<DmTable> tables = s.dm().tables();
    int nrCpus = s.cpu().count();
    boolean polls = supportsPoll && s.kernel().dmPoll();
    // Seed 002 2/3 gives io_bs a per-CPU cache; 3/3 only if the table supports polling.
    boolean cache =
        s.bioset().percpuCache()
            && s.kernel().has(Patch.DM_IO_BIOSET_PERCPU_CACHE)
            && (polls || !s.kernel().has(Patch.DM_PERCPU_CACHE_ONLY_IF_POLL));
    BioSetSettings b = s.bioset();
    BioSetSettings ioBsSettings =
        new BioSetSettings(
            cache,
            b.allocCacheMax(),
            b.allocCacheSlack(),
            b.bioInlineVecs(),
            RESERVED_BIO_BASED_IOS,
            s.dm().ioBsSlabObjects());
    for (int minor = 0; minor < tables.size(); minor++) {
      String name = DmSettings.name(minor);
      DmTable table = tables.get(minor);
      SimRef<MappedDeviceActor.Command> ref = registry.reserve(name);
      SimRef<BioSetActor.Command> ioBsRef = registry.reserve(name + "-io_bs");
      BioSetActor set =
          new BioSetActor(
              name + "-io_bs",
              new BioSet(
                  name + " io_bs", ioBsSettings, nrCpus, s.kernel().has(Patch.BIO_CACHE_IRQ_LIST)),
              costs,
              s.books().breakOnPurpose());
      registry.bind(ioBsRef, set);
      ioBs.add(set);
      Map<String, Disk> below = new TreeMap<>();
      for (DmTable.Target t : table.targets()) {
        below.put(t.device(), disks.get(t.device()));
      }
      MappedDevice md =
          new MappedDevice(
              name,
              table,
              polls,
              s.kernel().has(Patch.DM_CLONE_PERCPU_CACHE),
              (dev, cpu, polled) -> below.get(dev).hctxOf(cpu, polled),
              new Charger(costs, name));
      MappedDeviceActor device = new MappedDeviceActor(ref, md, ioBsRef, below, nrCpus);
      registry.bind(ref, device);
      devices.add(device);
      refs.put(name, ref);
      disks.put(
          "/dev/" + name,
          Disk.bioBased(
              name,
              table.sectors() * 512,
              ref.adapt(MappedDeviceActor.FromUpper::new),
              List.copyOf(below.values())));
    }
  }

  /**
   * The devices with suspend events, in the order of their first event: one dmsetup process each.
   */
  static List<String> suspended(BlksimSettings s) {
    List<String> names = new ArrayList<>();
    for (DmSettings.Suspend e : s.dm().suspends()) {
      String name = DmSettings.name(e.minor());
      if (!names.contains(name)) {
        names.add(name);
      }
    }
    return names;
  }

  /**
   * The commands of the dmsetup processes, each suspend at its virtual time with its length, to the
   * CPU {@code cpu} that runs them; the process of the {@code i}-th device of {@link #suspended} is
   * in slot {@code firstSlot + i}.
   */
  static void commands(
      BlksimSettings s, Registry registry, SimRef<Cpu.Command> cpu, int firstSlot) {
    List<String> names = suspended(s);
    for (DmSettings.Suspend e : s.dm().suspends()) {
      int slot = firstSlot + names.indexOf(DmSettings.name(e.minor()));
      registry.initial(
          cpu, new Cpu.DmSetupAt(VirtualTime.ps(e.atNs()), slot, VirtualTime.ps(e.forNs())));
    }
  }

  /** The devices' addresses by name, for the CPUs whose interrupts end their clones. */
  Map<String, SimRef<MappedDeviceActor.Command>> refs() {
    return Map.copyOf(refs);
  }

  /** Merges the devices' and their bio sets' CPU time into {@code ledger}. */
  void mergeInto(CostLedger ledger) {
    devices.forEach(d -> ledger.merge(d.ledger()));
    ioBs.forEach(b -> ledger.merge(b.ledger()));
  }

  void audit(Books books) {
    devices.forEach(d -> d.md().audit(books));
    ioBs.forEach(b -> b.bioSet().audit(books));
  }

  /** What each device did, and the dmsetup process of each that {@code dmsetups} has. */
  List<RunResult.Dm> results(List<DmSetup> dmsetups) {
    List<RunResult.Dm> all = new ArrayList<>();
    for (int i = 0; i < devices.size(); i++) {
      MappedDevice md = devices.get(i).md();
      DmSetup dmsetup = null;
      for (DmSetup d : dmsetups) {
        if (d.device().equals(md.name())) {
          dmsetup = d;
        }
      }
      BioSet set = ioBs.get(i).bioSet();
      all.add(
          new RunResult.Dm(
              md.name(),
              md.table().targets().size(),
              md.allocated(),
              set.cacheHits(),
              set.mempoolAllocs(),
              md.requeues().get(MappedDevice.Requeue.POLLED_EAGAIN),
              md.resubmitted(),
              md.requeues().get(MappedDevice.Requeue.SUSPENDED_NOWAIT),
              md.requeues().get(MappedDevice.Requeue.SUSPENDED_DEFERRED),
              dmsetup == null ? -1 : dmsetup.cpu(),
              dmsetup == null ? null : Topology.schedInfo(dmsetup.sched())));
    }
    return all;
  }
}

package blksim.actors.topology;

import blksim.config.BlksimSettings;
import blksim.config.ConfigError;
import blksim.config.DmSettings;
import blksim.config.DmTable;
import blksim.config.IoUringSettings;
import blksim.config.Limit;
import blksim.config.NullBlkSettings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The checks {@code dmsetup create} makes once the devices are known ({@code
 * device_area_is_invalid}, {@code validate_hardware_logical_block_alignment} in dm-table.c), and
 * what of device mapper blksim can run: a bad table is refused as the kernel refuses it; what is
 * not modelled yet says so.
 */
final class DmSupport {
  private DmSupport() {}

  /**
   * The longest suspend: an IOPOLL ring spins on the requests it holds, and a million polls in a
   * row that find nothing is what the model calls stuck.
   */
  static final long MAX_SUSPEND_NS = 10_000_000;

  /**
   * Checks every table against the null_blk devices, and the run's use of them.
   *
   * @throws ConfigError naming the device, the line and what is accepted
   */
  static void check(BlksimSettings s, NullBlkSettings n) {
    List<DmTable> tables = s.dm().tables();
    long devSectors = n.sizeBytes() / 512;
    int lbs = n.bs() / 512;
    IoUringSettings u = s.ioUring();
    int ioSectors = Math.max(1, u.blockSize() / 512);
    for (int minor = 0; minor < tables.size(); minor++) {
      String name = DmSettings.name(minor);
      for (DmTable.Target t : tables.get(minor).targets()) {
        String at = name + ": table line " + t.line() + ": ";
        if (t.device().startsWith("/dev/dm-")) {
          throw Limit.DM_ON_DM.refusal(at + t.device() + ": dm stacked on dm is not modelled yet");
        }
        if (!ModelSupport.isNullBlk(t.device(), n.nrDevices())) {
          throw new ConfigError(
              at
                  + "no such device "
                  + t.device()
                  + ": blksim stacks dm-linear on "
                  + ModelSupport.nullBlkNames(n.nrDevices()));
        }
        String dev = t.device().substring("/dev/".length());
        if (t.offset() + t.sectors() > devSectors) {
          throw new ConfigError(
              at
                  + dev
                  + " too small for target: start="
                  + t.offset()
                  + ", len="
                  + t.sectors()
                  + ", dev_size="
                  + devSectors
                  + " (sectors)");
        }
        if (t.offset() % lbs != 0) {
          throw new ConfigError(
              at
                  + "start="
                  + t.offset()
                  + " not aligned to h/w logical block size "
                  + n.bs()
                  + " of "
                  + dev);
        }
        if (t.start() % lbs != 0 || t.sectors() % lbs != 0) {
          throw new ConfigError(
              at
                  + "(start sect "
                  + t.start()
                  + " len "
                  + t.sectors()
                  + ") not aligned to h/w logical block size "
                  + n.bs());
        }
        if (t.start() % ioSectors != 0) {
          throw Limit.DM_SPLIT.refusal(
              at
                  + "a target boundary at sector "
                  + t.start()
                  + " inside a "
                  + u.blockSize()
                  + "-byte read: bios split across targets are not modelled yet");
        }
      }
    }
    for (int minor = 0; minor < tables.size(); minor++) {
      long bytes = tables.get(minor).sectors() * 512;
      if (u.files().contains("/dev/" + DmSettings.name(minor)) && bytes / u.blockSize() <= 1) {
        // t/io_uring's setup_file: max_blocks <= 1.
        throw new ConfigError(
            DmSettings.name(minor)
                + ": "
                + bytes
                + " bytes hold at most one -b "
                + u.blockSize()
                + " read: t/io_uring says 'Zero file/device size?' and exits");
      }
    }
    checkUse(s, tables);
    checkSuspends(s, n);
  }

  /** Suspend events: polled I/O (io-wq's IOPOLL reissue), no timers, done before the run ends. */
  private static void checkSuspends(BlksimSettings s, NullBlkSettings n) {
    long lastEnd = -1;
    for (DmSettings.Suspend e : s.dm().suspends()) {
      String what = "blksim.dm.suspend of " + DmSettings.name(e.minor());
      if (!s.ioUring().polled()) {
        throw Limit.DM_SUSPEND_P0.refusal(
            what + " with -p0: io-wq's blocking reissue is not modelled yet");
      }
      if (n.irqmode() == NullBlkSettings.IrqMode.TIMER) {
        throw Limit.DM_SUSPEND_TIMER.refusal(what + " with null_blk irqmode=2 is not modelled yet");
      }
      if (e.forNs() > MAX_SUSPEND_NS) {
        throw Limit.DM_SUSPEND_LONG.refusal(
            what
                + " for "
                + e.forNs()
                + " ns: a suspend of more than "
                + MAX_SUSPEND_NS / 1_000_000
                + " ms (an IOPOLL ring spinning through it) is not modelled yet");
      }
      if (e.atNs() >= s.run().runtimeNs() || e.forNs() >= s.run().runtimeNs() - e.atNs()) {
        throw new ConfigError(
            what
                + ": the resume, "
                + e.forNs()
                + " ns after the suspend at "
                + e.atNs()
                + " ns, comes after the run's end at "
                + s.run().runtimeNs()
                + " ns: what it defers would never complete");
      }
      if (e.atNs() < lastEnd) {
        throw new ConfigError(what + " at " + e.atNs() + " ns overlaps the suspend before it");
      }
      lastEnd = e.atNs() + e.forNs();
    }
  }

  /** What files on DM devices may not do yet. */
  private static void checkUse(BlksimSettings s, List<DmTable> tables) {
    IoUringSettings u = s.ioUring();
    Set<String> files = new TreeSet<>(u.files());
    Map<String, String> under = new TreeMap<>();
    for (int minor = 0; minor < tables.size(); minor++) {
      String dm = "/dev/" + DmSettings.name(minor);
      if (!files.contains(dm)) {
        continue;
      }
      if (u.polled() && !s.kernel().dmPoll()) {
        throw Limit.DM_POLL_BEFORE_5_18.refusal(
            "-p1 on "
                + dm
                + " with --kernel "
                + s.kernel().preset()
                + ": DM has no bio polling before 5.18, so the kernel clears REQ_HIPRI and the"
                + " reads complete by interrupt while io_uring spins; that is not modelled yet");
      }
      for (DmTable.Target t : tables.get(minor).targets()) {
        if (files.contains(t.device())) {
          throw Limit.DM_AND_BELOW.refusal(
              dm
                  + " and "
                  + t.device()
                  + " under it read in one run (a poll of one ending the other's bios)"
                  + " is not modelled yet");
        }
        String other = under.put(t.device(), dm);
        if (other != null && !other.equals(dm)) {
          throw Limit.DM_SHARED_DEVICE.refusal(
              other
                  + " and "
                  + dm
                  + " both on "
                  + t.device()
                  + " read in one run is not modelled yet");
        }
      }
    }
  }
}

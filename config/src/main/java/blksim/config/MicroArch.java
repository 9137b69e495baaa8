package blksim.config;

/**
 * Micro-architectural facts of a CPU, from which the costs of the path's variants are derived: the
 * bdev lookups (dependent loads, out-of-line calls), {@code bio_init} (stores or {@code rep stos}),
 * atomics, {@code ktime_get_ns}, the syscall. Cycles are converted at {@code clockGhz}.
 *
 * @param clockGhz core clock under load, GHz
 * @param l1LoadCycles a dependent load that hits L1
 * @param l2LoadCycles a dependent load that hits L2
 * @param callCycles an out-of-line call and return of a small function, frame included
 * @param storeCycles one store in a run of independent stores
 * @param repStosStartupCycles start-up of {@code rep stosq}
 * @param repStosQwordCycles {@code rep stosq} per qword, at small counts
 * @param atomicCycles an uncontended {@code lock}-prefixed read-modify-write
 * @param irqSaveRestoreCycles {@code local_irq_save} plus {@code local_irq_restore}
 * @param cachelineTransferNs a cache line moving between cores
 * @param ktimeGetNs one {@code ktime_get_ns()}
 * @param syscallNs entry and exit of one syscall, with this box's mitigations
 * @param blkgAssociateNs {@code bio_associate_blkg} of a DM clone: 0 without CONFIG_BLK_CGROUP
 */
public record MicroArch(
    double clockGhz,
    double l1LoadCycles,
    double l2LoadCycles,
    double callCycles,
    double storeCycles,
    double repStosStartupCycles,
    double repStosQwordCycles,
    double atomicCycles,
    double irqSaveRestoreCycles,
    double cachelineTransferNs,
    double ktimeGetNs,
    double syscallNs,
    double blkgAssociateNs) {

  /** Nanoseconds of {@code cycles} at this clock. */
  public double ns(double cycles) {
    return cycles / clockGhz;
  }

  static MicroArch from(SettingsReader r, String path) {
    return new MicroArch(
        r.positiveDouble(path + ".clock-ghz"),
        r.nonNegativeDouble(path + ".l1-load-cycles"),
        r.nonNegativeDouble(path + ".l2-load-cycles"),
        r.nonNegativeDouble(path + ".call-cycles"),
        r.nonNegativeDouble(path + ".store-cycles"),
        r.nonNegativeDouble(path + ".rep-stos-startup-cycles"),
        r.nonNegativeDouble(path + ".rep-stos-qword-cycles"),
        r.nonNegativeDouble(path + ".atomic-cycles"),
        r.nonNegativeDouble(path + ".irq-save-restore-cycles"),
        r.nonNegativeDouble(path + ".cacheline-transfer-ns"),
        r.nonNegativeDouble(path + ".ktime-get-ns"),
        r.nonNegativeDouble(path + ".syscall-ns"),
        r.nonNegativeDouble(path + ".blkg-associate-ns"));
  }
}

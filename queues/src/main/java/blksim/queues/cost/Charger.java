package blksim.queues.cost;

/**
 * Charges kernel functions, priced by a run's {@link PathCosts}, to a CPU in a component's own
 * {@link CostLedger}; every charge returns the time it takes, which the caller adds to its clock.
 */
public final class Charger {
  private final PathCosts costs;
  private final CostLedger ledger = new CostLedger();
  private final CallVariation variation;

  /**
   * A charger of the component {@code owner}, whose calls vary ({@link PathCosts#variation()}) in
   * streams of its own.
   */
  public Charger(PathCosts costs, String owner) {
    this.costs = costs;
    this.variation = costs.variation().streams(owner);
  }

  /**
   * {@code calls} calls of {@code fn} on {@code cpu}, spent on {@code what}; returns their time in
   * ps.
   */
  public long charge(int cpu, CpuTime what, KernelFn fn, long calls) {
    long ps = chargeStep(cpu, what, costs.step(fn), calls);
    PatchPrices.Rider[] riders = costs.riders(fn);
    if (riders != null) {
      // the functions patches add to it, each at its own price, with streams of its own
      for (PatchPrices.Rider r : riders) {
        ps += chargeStep(cpu, what, r.step(), calls * r.perCall());
      }
    }
    return ps;
  }

  private long chargeStep(int cpu, CpuTime what, CostStep step, long calls) {
    if (variation == null) {
      return ledger.charge(cpu, what, step, calls);
    }
    return ledger.charge(cpu, what, step, calls, variation.draw(cpu, step, calls));
  }

  /** {@code calls} calls of each of {@code fns} on {@code cpu}; returns their time in ps. */
  public long charge(int cpu, CpuTime what, KernelFn[] fns, long calls) {
    long ps = 0;
    for (KernelFn fn : fns) {
      ps += charge(cpu, what, fn, calls);
    }
    return ps;
  }

  /**
   * {@code calls} calls of a step priced apart from the function table (a cache-line transfer, time
   * a lock adds): these do not vary.
   */
  public long charge(int cpu, CpuTime what, CostStep step, long calls) {
    return ledger.charge(cpu, what, step, calls);
  }

  /**
   * What a lock's acquisition {@code a} adds on {@code cpu}: the spin, as CPU time "lock wait"
   * ({@code wait} names it), and the lock's line from another CPU ({@code line}), as {@code what}.
   */
  public long lock(
      int cpu,
      CpuTime what,
      blksim.queues.time.SpinLock.Acquired a,
      blksim.queues.cost.Contention wait,
      CostStep line) {
    long ps = 0;
    if (a.waitPs() > 0) {
      ps += charge(cpu, CpuTime.LOCK_WAIT, new CostStep(wait, a.waitPs()), 1);
    }
    if (a.transferPs() > 0) {
      ps += charge(cpu, what, line, 1);
    }
    return ps;
  }

  public PathCosts costs() {
    return costs;
  }

  public CostLedger ledger() {
    return ledger;
  }
}

package blksim.loadgen.perf;

/**
 * One symbol's line of a pasted {@code perf report --stdio} (docs/your-box.md 2).
 *
 * @param selfPct its own share of all samples, percent (the Self column, or the only one)
 * @param childrenPct the Children column when the report has one, else NaN
 * @param command the Command column, empty if the report has none
 * @param dso the Shared Object column, empty if the report has none
 * @param user a user-space symbol: the {@code [.]} marker, or a shared object that is not the
 *     kernel's or a module's
 */
public record PerfEntry(
    String symbol, double selfPct, double childrenPct, String command, String dso, boolean user) {}

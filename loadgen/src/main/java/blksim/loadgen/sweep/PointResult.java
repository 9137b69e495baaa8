package blksim.loadgen.sweep;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;

/**
 * What a sweep's table holds of one point, read from its run directory's {@code summary.json}, so
 * that a point computed now and one found computed read alike.
 */
public record PointResult(
    long iops,
    long bwBytes,
    double cpuNsPerIo,
    long p50Ns,
    long p99Ns,
    long p999Ns,
    boolean balanced,
    String ended) {

  /** The figures of a {@code summary.json}'s text. */
  public static PointResult ofSummary(String json) {
    Config s =
        ConfigFactory.parseString(json, ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON));
    return new PointResult(
        s.getLong("iops"),
        s.getLong("bw_bytes"),
        s.getDouble("cpu_ns_per_io"),
        s.getLong("latency_ns.p50"),
        s.getLong("latency_ns.p99"),
        s.getLong("latency_ns.\"p99.9\""),
        s.getBoolean("books.balanced"),
        s.getString("ended"));
  }
}

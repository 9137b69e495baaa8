package blksim.loadgen.report;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The tables of a run's report.html, from its summary.json: the headline figures, the latency
 * percentiles, each CPU's time and each hardware queue's tags. Latencies are in µs.
 */
final class RunTables {
  private RunTables() {}

  /** IOPS, bandwidth, I/Os, CPU time per I/O, latency and the books. */
  static String summary(Config s) {
    HtmlTable t = new HtmlTable("summary", "", "");
    t.row("IOPS", Long.toString(s.getLong("iops")));
    t.row(
        "bandwidth",
        String.format(
            Locale.ROOT,
            "%d B/s (%.0f MiB/s)",
            s.getLong("bw_bytes"),
            s.getLong("bw_bytes") / 1048576.0));
    t.row(
        "I/Os",
        s.getLong("ios_submitted") + " submitted, " + s.getLong("ios_completed") + " completed");
    t.row("CPU time per I/O", String.format(Locale.ROOT, "%.1f ns", nsPerIo(s)));
    Config lat = s.getConfig("latency_ns");
    t.row("latency mean", us(lat.getDouble("mean")));
    Map<Double, Double> pct = percentiles(s);
    for (double p : new double[] {50, 90, 99, 99.9, 99.99}) {
      Double v = pct.get(p);
      if (v != null) {
        t.row("latency " + name(p), us(v));
      }
    }
    t.row("latency max", us(lat.getDouble("max")));
    t.row("books", books(s));
    return t.toString();
  }

  /** Each percentile summary.json gives, and the maximum. */
  static String percentileTable(Config s) {
    HtmlTable t = new HtmlTable("pct", "percentile", "latency, µs");
    for (Map.Entry<Double, Double> e : percentiles(s).entrySet()) {
      t.row(name(e.getKey()), num(e.getValue() / 1000.0));
    }
    t.row("max", num(s.getConfig("latency_ns").getDouble("max") / 1000.0));
    return t.toString();
  }

  /** Each CPU's time by what it did, in % of its time. */
  static String cpus(CpuTimes.Shares c) {
    List<String> head = new ArrayList<>(List.of("CPU"));
    c.categories().forEach(k -> head.add(k + ", %"));
    HtmlTable t = new HtmlTable("cpus", head.toArray(String[]::new));
    for (int i = 0; i < c.cpus().size(); i++) {
      List<String> row = new ArrayList<>(List.of(c.cpus().get(i)));
      for (List<Double> k : c.pct()) {
        row.add(String.format(Locale.ROOT, "%.1f", k.get(i)));
      }
      t.row(row.toArray(String[]::new));
    }
    return t.toString();
  }

  /**
   * How threads that share a CPU took turns, when some do: each thread's time on the CPU and
   * waiting on its run queue, in ms, and its switches; nothing when every thread has a CPU alone.
   */
  static String runQueue(Config s) {
    if (!s.hasPath("run_queue")) {
      return "";
    }
    HtmlTable t =
        new HtmlTable(
            "runqueue", "task", "CPU", "on CPU, ms", "run-queue wait, ms", "nvcsw", "nivcsw");
    for (Config q : s.getConfigList("run_queue")) {
      t.row(
          q.hasPath("worker_of")
              ? "io-wq worker of " + q.getLong("worker_of")
              : q.hasPath("dmsetup_of")
                  ? "dmsetup of " + q.getString("dmsetup_of")
                  : Long.toString(q.getLong("thread")),
          Long.toString(q.getLong("cpu")),
          String.format(Locale.ROOT, "%.3f", q.getLong("on_cpu_ns") / 1e6),
          String.format(Locale.ROOT, "%.3f", q.getLong("run_delay_ns") / 1e6),
          Long.toString(q.getLong("nvcsw")),
          Long.toString(q.getLong("nivcsw")));
    }
    return "<h2>Tasks that share a CPU</h2>\n<p class=\"note\">Threads, a thread's io-wq worker"
        + " where no CPU was left for it, and a DM suspend's dmsetup: they take turns on its CFS run"
        + " queue: the time each ran, the time it waited runnable while another ran (run_delay),"
        + " and its switches out, asleep (nvcsw) or preempted (nivcsw).</p>\n"
        + t
        + "\n";
  }

  /** Each hardware queue's tags: in use on average and at most, of its depth, and its requests. */
  static String hctx(Config s) {
    HtmlTable t =
        new HtmlTable("hctx", "hardware queue", "mean in use", "max in use", "depth", "requests");
    for (Config h : s.getConfigList("hctx")) {
      t.row(
          h.getString("name"),
          String.format(Locale.ROOT, "%.2f", h.getDouble("mean_in_use")),
          Long.toString(h.getLong("max_in_use")),
          Long.toString(h.getLong("tags")),
          Long.toString(h.getLong("requests")));
    }
    return t.toString();
  }

  /**
   * The CPU time per I/O of all functions of the profile together, in ns: {@code cpu_ns_per_io}, or
   * the profile's lines added up in a summary.json written before it had that key.
   */
  static double nsPerIo(Config s) {
    if (s.hasPath("cpu_ns_per_io")) {
      return s.getDouble("cpu_ns_per_io");
    }
    double ns = 0;
    for (Config p : s.getConfigList("profile")) {
      ns += p.getDouble("ns_per_io");
    }
    return ns;
  }

  /** The books line as the summary prints it. */
  static String books(Config s) {
    Config b = s.getConfig("books");
    if (b.getBoolean("balanced")) {
      return b.hasPath("cut")
          ? "balanced as far as a cut run goes: "
              + b.getLong("in_flight")
              + " I/Os in flight when the drain was cut"
          : Summary.BALANCED;
    }
    List<String> v = b.getStringList("violations");
    return "NOT balanced: " + (v.isEmpty() ? "" : v.get(0));
  }

  /** summary.json's {@code latency_ns.percentile}, in ns, by percentile, in order. */
  static Map<Double, Double> percentiles(Config s) {
    Map<Double, Double> m = new TreeMap<>();
    ConfigObject o = s.getConfig("latency_ns").getObject("percentile");
    for (Map.Entry<String, ConfigValue> e : o.entrySet()) {
      m.put(Double.parseDouble(e.getKey()), ((Number) e.getValue().unwrapped()).doubleValue());
    }
    return m;
  }

  /** "p99.9" of 99.9. */
  static String name(double p) {
    String n = String.format(Locale.ROOT, "%.4f", p).replaceAll("0+$", "").replaceAll("\\.$", "");
    return "p" + n;
  }

  static String us(double ns) {
    return num(ns / 1000.0) + " µs";
  }

  /** {@code latency_ns.KEY} of a summary.json ("p99.9" is one key, dot and all). */
  static double latencyNs(Config s, String key) {
    return ((Number) s.getConfig("latency_ns").root().get(key).unwrapped()).doubleValue();
  }

  static String num(double us) {
    return String.format(Locale.ROOT, "%.3f", us);
  }
}

package blksim.loadgen.report;

import blksim.actors.topology.RunResult;
import blksim.queues.cost.CpuTime;
import blksim.queues.time.VirtualTime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes a run's figures as JSON; keys are fio's where fio has one ({@code iops}, {@code
 * bw_bytes}).
 */
public final class JsonReport {
  private JsonReport() {}

  /** The JSON text of {@code r}. */
  public static String render(RunReport r) {
    var res = r.result();
    var s = r.settings();
    StringBuilder b = new StringBuilder(1024);
    b.append("{\n");
    field(b, "blksim_command", quote(Summary.commandLine(s.ioUring())));
    field(b, "cpu_profile", quote(s.profile().name()));
    field(b, "model", quote(Summary.model(s)));
    field(b, "seed", Long.toString(s.run().seed()));
    field(b, "virtual_ns", Long.toString(s.run().runtimeNs()));
    field(b, "virtual_end_ns", Long.toString(res.endPs() / 1000));
    field(b, "ended", quote(r.ending().complete() ? "runtime" : r.ending().early()));
    field(b, "iops", Long.toString(r.iops()));
    field(b, "bw_bytes", Long.toString(r.bwBytes()));
    String engine = ioEngine(s.ioUring());
    field(b, "engine", quote(engine));
    // aio's done counts reaps: the kernel took its iocbs
    field(b, "ios_submitted", Long.toString(engine.equals("aio") ? r.accepted() : res.done()));
    field(b, "ios_completed", Long.toString(r.completed()));
    if (engine.startsWith("io_uring")) {
      field(b, "io_uring_enter_calls", Long.toString(res.calls()));
    }
    // its loop's syscalls: io_uring_enter, preadv2, or io_submit and io_getevents
    field(b, "calls", Long.toString(res.calls()));
    // the profile's lines together, as the summary's CPUs and profile lines print it
    field(
        b,
        "cpu_ns_per_io",
        String.format(Locale.ROOT, "%.3f", ProfileReport.nsPerIo(ProfileReport.lines(r))));
    b.append("  \"latency_ns\": {");
    b.append("\"p50\": ").append(r.latencyNs(50)).append(", ");
    b.append("\"p90\": ").append(r.latencyNs(90)).append(", ");
    b.append("\"p99\": ").append(r.latencyNs(99)).append(", ");
    b.append("\"p99.9\": ").append(r.latencyNs(99.9)).append(", ");
    b.append("\"max\": ").append(res.latencyNs().getMaxValue()).append(", ");
    b.append("\"mean\": ")
        .append(String.format(Locale.ROOT, "%.3f", res.latencyNs().getMean()))
        .append(", ");
    b.append("\"percentile\": {");
    long[] pv = r.percentilesNs();
    for (int i = 0; i < pv.length; i++) {
      b.append(i == 0 ? "" : ", ")
          .append(quote(String.format(Locale.ROOT, "%f", TIoUringFormat.PLIST[i])))
          .append(": ")
          .append(pv[i]);
    }
    b.append("}},\n");
    b.append("  \"intervals\": [");
    var lines = r.lines();
    for (int i = 0; i < lines.size(); i++) {
      var l = lines.get(i);
      b.append(i == 0 ? "\n" : ",\n")
          .append(
              String.format(
                  Locale.ROOT,
                  "    {\"start_ns\": %d, \"end_ns\": %d, \"ios\": %d, \"iops\": %d, \"ios_per_call\": [%d, %d]}",
                  l.startNs(),
                  l.endNs(),
                  l.done(),
                  l.iops(),
                  l.rpc(),
                  l.ipc()));
    }
    b.append("\n  ],\n");
    b.append("  \"profile\": [");
    List<ProfileReport.Line> profile = ProfileReport.lines(r);
    for (int i = 0; i < profile.size(); i++) {
      ProfileReport.Line l = profile.get(i);
      b.append(i == 0 ? "\n" : ",\n")
          .append(
              String.format(
                  Locale.ROOT,
                  "    {\"function\": %s, \"ns_per_io\": %.3f, \"share\": %.5f, \"calls_per_io\": %.4f}",
                  quote(l.function()),
                  l.nsPerIo(),
                  l.share(),
                  l.callsPerIo()));
    }
    b.append("\n  ],\n");
    if (!res.dms().isEmpty()) {
      b.append("  \"dm\": [");
      for (int i = 0; i < res.dms().size(); i++) {
        var d = res.dms().get(i);
        b.append(i == 0 ? "\n" : ",\n")
            .append(
                String.format(
                    Locale.ROOT,
                    "    {\"name\": %s, \"targets\": %d, \"dm_ios\": %d, \"clone_cache_hits\": %d,"
                        + " \"clone_mempool_allocs\": %d, \"requeued_polled_eagain\": %d,"
                        + " \"resubmitted\": %d}",
                    quote(d.name()),
                    d.targets(),
                    d.dmIos(),
                    d.cacheHits(),
                    d.mempoolAllocs(),
                    d.requeuedPolledEagain(),
                    d.resubmitted()));
      }
      b.append("\n  ],\n");
    }
    cpus(res, b);
    b.append("  \"books\": {\"balanced\": ")
        .append(res.books().balanced())
        .append(", \"violations\": [");
    var v = res.books().violations();
    for (int i = 0; i < v.size(); i++) {
      b.append(i == 0 ? "" : ", ").append(quote(v.get(i)));
    }
    b.append("]");
    if (res.books().cut()) {
      // a run whose drain was cut: its I/Os in flight, and the drained run's checks they left open
      b.append(", \"cut\": true, \"in_flight\": ")
          .append(r.inFlight())
          .append(", \"left_in_flight\": ")
          .append(res.books().leftInFlight().size());
    }
    b.append("},\n");
    field(b, "wall_sec", String.format(Locale.ROOT, "%.3f", r.wallNanos() / 1e9));
    b.append("  \"sim_ios_per_wall_sec\": ")
        .append(Math.round(r.simIosPerWallSec()))
        .append("\n}\n");
    return b.toString();
  }

  /** t/io_uring's Engine= line, and -N1; -S1 wins over -a1. */
  static String ioEngine(blksim.config.IoUringSettings u) {
    return u.syncIo() ? "preadv2" : u.aio() ? "aio" : u.nop() ? "io_uring nop" : "io_uring";
  }

  /** Each CPU's time by kind over the run, and each hardware queue's tags in use. */
  private static void cpus(RunResult res, StringBuilder b) {
    List<String> rows = new ArrayList<>();
    for (List<RunResult.Submitter> threads : res.threadsByCpu().values()) {
      rows.add(cpuTime(res, threads.get(0).cpu(), Summary.threadNames(threads)));
    }
    for (RunResult.Worker w : res.workers()) {
      if (!res.sharesCpu(w)) { // else its time is in its thread's row
        rows.add(cpuTime(res, w.cpu(), "wrk" + w.thread()));
      }
    }
    b.append("  \"cpus\": [\n").append(String.join(",\n", rows)).append("\n  ],\n");
    if (res.sharedCpus()) { // how the tasks that share a CPU took turns
      List<String> tasks = new ArrayList<>();
      for (RunResult.Submitter sub : res.submitters()) {
        if (!res.shared(sub.cpu())) {
          continue; // alone on its CPU
        }
        tasks.add(runQueueEntry("thread", sub.index(), sub.cpu(), sub.sched()));
        for (RunResult.Worker w : res.workers()) {
          if (w.thread() == sub.index() && res.sharesCpu(w)) {
            tasks.add(runQueueEntry("worker_of", w.thread(), w.cpu(), w.sched()));
          }
        }
      }
      for (RunResult.Worker w : res.workers()) {
        if (!res.sharesCpu(w) && res.shared(w.cpu())) { // on a CPU of its own, beside dmsetup
          tasks.add(runQueueEntry("worker_of", w.thread(), w.cpu(), w.sched()));
        }
      }
      for (RunResult.Dm dm : res.dms()) {
        if (res.dmsetupShares(dm)) {
          tasks.add(runQueueEntry("dmsetup_of", quote(dm.name()), dm.dmsetupCpu(), dm.dmsetup()));
        }
      }
      b.append("  \"run_queue\": [\n").append(String.join(",\n", tasks)).append("\n  ],\n");
    }
    List<String> hctxs = new ArrayList<>();
    for (RunResult.Hctx h : res.hctxs()) {
      hctxs.add(
          String.format(
              Locale.ROOT,
              "    {\"name\": %s, \"mean_in_use\": %.3f, \"max_in_use\": %d, \"tags\": %d,"
                  + " \"requests\": %d%s}",
              quote(h.name()),
              h.meanInUse(),
              h.maxInUse(),
              h.nrTags(),
              h.dispatched(),
              h.sched() == null
                  ? ""
                  : String.format(
                      Locale.ROOT,
                      ", \"scheduler\": \"mq-deadline\", \"driver_tags\": %d,"
                          + " \"dd_lock_taken\": %d, \"dd_lock_spun\": %d, \"dd_lock_wait_ns\": %d",
                      h.sched().driverTags(),
                      h.sched().lockTaken(),
                      h.sched().lockSpun(),
                      h.sched().lockWaitPs() / 1000)));
    }
    b.append("  \"hctx\": [\n").append(String.join(",\n", hctxs)).append("\n  ],\n");
  }

  private static String cpuTime(RunResult res, int cpu, String thread) {
    StringBuilder row =
        new StringBuilder(
            String.format(Locale.ROOT, "    {\"cpu\": %d, \"thread\": %s", cpu, quote(thread)));
    long busy = 0;
    for (CpuTime t : CpuTime.values()) {
      long ps = res.ledger().time(cpu, t);
      busy += ps;
      if (!Summary.shownTimes(res).contains(t)) {
        continue;
      }
      row.append(", ").append(quote(t.label().replace(' ', '_') + "_ns")).append(": ");
      row.append(ps / VirtualTime.PS_PER_NS);
    }
    long idle = Math.max(0, res.endPs() - busy) / VirtualTime.PS_PER_NS;
    return row.append(", \"idle_ns\": ").append(idle).append("}").toString();
  }

  /** Writes the JSON of {@code r} to {@code path}. */
  public static void write(RunReport r, Path path) throws IOException {
    Files.writeString(path, render(r), StandardCharsets.UTF_8);
  }

  private static void field(StringBuilder b, String key, String value) {
    b.append("  ").append(quote(key)).append(": ").append(value).append(",\n");
  }

  public static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  /**
   * One task of the run-queue table: a thread ({@code "thread"}), a thread's io-wq worker ({@code
   * "worker_of"}) or a DM device's dmsetup process ({@code "dmsetup_of"}), with its CPU and its
   * schedstat.
   */
  private static String runQueueEntry(String key, int thread, int cpu, RunResult.SchedInfo s) {
    return runQueueEntry(key, Integer.toString(thread), cpu, s);
  }

  /** One task of the run-queue table, {@code value} already in JSON. */
  private static String runQueueEntry(String key, String value, int cpu, RunResult.SchedInfo s) {
    return String.format(
        Locale.ROOT,
        "    {\"%s\": %s, \"cpu\": %d, \"on_cpu_ns\": %d, \"run_delay_ns\": %d,"
            + " \"nvcsw\": %d, \"nivcsw\": %d}",
        key,
        value,
        cpu,
        s.onCpuPs() / VirtualTime.PS_PER_NS,
        s.runDelayPs() / VirtualTime.PS_PER_NS,
        s.nvcsw(),
        s.nivcsw());
  }
}

package blksim.loadgen.report;

import blksim.actors.engine.Interruption;
import blksim.actors.topology.RunResult;
import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import blksim.config.NullBlkSettings;
import blksim.queues.books.Books;
import blksim.queues.cost.CpuTime;
import blksim.queues.time.VirtualTime;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** blksim's own summary after t/io_uring's lines; every line but the last is deterministic. */
public final class Summary {
  private Summary() {}

  /** The books line of a run whose books balance. */
  static final String BALANCED =
      "balanced: every I/O submitted completed once; no bio, request or tag left over";

  /** Prints the summary, without the last (wall-time) line. */
  public static void print(RunReport r, PrintStream out) {
    BlksimSettings s = r.settings();
    IoUringSettings u = s.ioUring();
    RunResult res = r.result();
    out.println();
    out.printf(
        Locale.ROOT,
        "blksim: %s for %s of virtual time, seed %d%n",
        commandLine(u),
        seconds(s.run().runtimeNs()),
        s.run().seed());
    boolean cut = res.books().cut();
    if (cut) {
      out.printf(
          Locale.ROOT,
          "  ended       early, after %s of virtual time: a signal, then its drain cut after %s"
              + " of wall time with %d I/Os in flight%n",
          elapsed(r.ranNs()),
          seconds(Interruption.DRAIN_WALL_NS),
          r.inFlight());
    } else if (!r.ending().complete()) {
      out.printf(
          Locale.ROOT,
          "  ended       early, after %s of virtual time: %s%n",
          elapsed(r.ranNs()),
          r.ending().early());
    }
    String inFlight = cut ? ", " + r.inFlight() + " in flight when cut" : "";
    out.printf(Locale.ROOT, "  model       %s%n", model(s));
    out.printf(
        Locale.ROOT,
        "  IOPS        %d (%s), submissions per second of virtual time%n",
        r.iops(),
        TIoUringFormat.iops(r.iops()).substring(5));
    if (!u.nop()) {
      out.printf(Locale.ROOT, "  bandwidth   %d B/s (%dMiB/s)%n", r.bwBytes(), r.bwBytes() >> 20);
    }
    long calls = res.calls();
    long dropped = res.submitters().stream().mapToLong(RunResult.Submitter::droppedAtExit).sum();
    if (u.syncIo()) {
      out.printf(
          Locale.ROOT,
          "  I/Os        %d preadv2 calls, %d returned a whole block%s, IOS/call=1/0%n",
          calls,
          res.done(),
          inFlight);
    } else if (u.aio()) {
      // -S1 wins over -a1 (the branch above)
      out.printf(
          Locale.ROOT,
          "  I/Os        %d submitted, %d completed%s (%d reaped, %d left in the aio ring), %d"
              + " calls of io_submit and io_getevents, IOS/call=%d/%d%n",
          r.accepted(),
          r.completed(),
          inFlight,
          res.reaps(),
          r.completed() - res.reaps(),
          calls,
          calls == 0 ? -1 : res.done() / calls,
          calls == 0 ? -1 : res.reaps() / calls);
    } else {
      // a thread that hangs made one call more, which never returned, with the SQEs it took
      long hung = res.hungCalls();
      long entered = calls + hung;
      out.printf(
          Locale.ROOT,
          "  I/Os        %d submitted, %d completed%s (%d reaped, %d at ring teardown, %d left in"
              + " the CQ ring), %d io_uring_enter calls%s, IOS/call=%d/%d%n",
          r.accepted(),
          r.completed(),
          inFlight,
          res.reaps(),
          dropped,
          r.completed() - res.reaps() - dropped,
          entered,
          hung == 0 ? "" : " (" + hung + " never returned)",
          entered == 0 ? -1 : r.accepted() / entered,
          entered == 0 ? -1 : res.reaps() / entered);
    }
    out.printf(
        Locale.ROOT,
        "  latency     submit to reap, %d I/Os, mean %.1f ns, max %d ns%n",
        res.latencyNs().getTotalCount(),
        res.latencyNs().getMean(),
        res.latencyNs().getMaxValue());
    for (String line : TIoUringFormat.percentiles(r.percentilesNs(), "  ")) {
      out.println(line);
    }
    cpus(r, out);
    runQueue(r, out);
    for (RunResult.Submitter sub : res.submitters()) {
      if (!sub.fatal().isEmpty()) {
        out.printf(
            Locale.ROOT,
            "  submitter%d  stopped: %s%n",
            sub.index(),
            String.join("; ", sub.fatal()));
      }
    }
    for (RunResult.Hctx h : res.hctxs()) {
      out.printf(
          Locale.ROOT,
          "  hctx        %s: %.2f %stags in use on average, %d at most, of %d; %d requests%s%n",
          h.name(),
          h.meanInUse(),
          h.sched() == null ? "" : "sched ",
          h.maxInUse(),
          h.nrTags(),
          h.dispatched(),
          sched(h.sched())
              + (h.merged() == 0
                  ? ""
                  : String.format(
                      Locale.ROOT,
                      " of %d bios (%.2f bios per request: %d merged in the plug)",
                      h.dispatched() + h.merged(),
                      (double) (h.dispatched() + h.merged()) / h.dispatched(),
                      h.merged()))
              + (h.noTag() == 0
                  ? ""
                  : "; " + h.noTag() + " bios found no tag (REQ_NOWAIT: -EAGAIN)")
              + (h.tagWaits() == 0
                  ? ""
                  : "; " + h.tagWaits() + " tag waits (no REQ_NOWAIT: asleep in blk_mq_get_tag)")
              + (h.busy() + h.requeued() == 0
                  ? ""
                  : "; requeued by the driver: "
                      + h.busy()
                      + " BLK_STS_RESOURCE, "
                      + h.requeued()
                      + " blk_mq_requeue_request"));
    }
    for (RunResult.Worker w : res.workers()) {
      out.printf(
          Locale.ROOT,
          "  io-wq       thread %d's worker on cpu%d%s: %d requests punted, %d issues retried on"
              + " -EAGAIN, %d wake-ups, %.3f ms spun on uring_lock%s%s%n",
          w.thread(),
          w.cpu(),
          res.sharesCpu(w) ? " (the thread's own: no CPU was left)" : "",
          w.punted(),
          w.retries(),
          w.wakeUps(),
          w.lockWaitPs() / 1e9,
          w.tagSleeps() == 0
              ? ""
              : ", "
                  + w.tagSleeps()
                  + " sleeps on the tag wait queue (blocking issue, woken by freed tags)",
          w.spinSlices() + w.spinsEndedByTag() == 0
              ? ""
              : String.format(
                  Locale.ROOT,
                  ", %.3f ms spun for a tag on the thread's CPU: %d spins ended by the tick's"
                      + " end of the slice, %d by a freed tag",
                  w.spunPs() / 1e9,
                  w.spinSlices(),
                  w.spinsEndedByTag()));
    }
    for (RunResult.Dm d : res.dms()) {
      out.printf(
          Locale.ROOT,
          "  dm          %s: %d dm_ios; clones from io_bs: %d from the per-CPU cache, %d from the"
              + " mempool; requeued: %d polled BLK_STS_AGAIN, %d resubmitted by md->wq%s%n",
          d.name(),
          d.dmIos(),
          d.cacheHits(),
          d.mempoolAllocs(),
          d.requeuedPolledEagain(),
          d.resubmitted(),
          d.suspendedNowait() + d.suspendedDeferred() == 0
              ? ""
              : "; while suspended: "
                  + d.suspendedNowait()
                  + " REQ_NOWAIT bios -EAGAIN (to io-wq), "
                  + d.suspendedDeferred()
                  + " deferred until resume");
    }
    List<ProfileReport.Line> profile = ProfileReport.lines(r);
    out.printf(
        Locale.ROOT,
        "  profile     CPU time per I/O by kernel function, all CPUs, %.1f ns in all"
            + " (profile %s: its steps at scale %.3f):%n",
        ProfileReport.nsPerIo(profile),
        r.settings().profile().name(),
        r.settings().profile().scale());
    ProfileReport.format(profile, "    ").forEach(out::println);
    RunResult.BioCache c = res.bioCache();
    out.printf(
        Locale.ROOT,
        "  bio cache   %d bios from the per-CPU cache, %d from the mempool, %d pruned%n",
        c.cacheHits(),
        c.mempoolAllocs(),
        c.pruned());
    out.printf(Locale.ROOT, "  books       %s%n", books(r));
  }

  /**
   * The books line: balanced, the first violation, or for a run whose drain was cut, that the
   * checks of every step balanced and how many of those of a drained run its I/Os in flight left.
   */
  static String books(RunReport r) {
    Books b = r.result().books();
    if (!b.balanced()) {
      return "NOT balanced: " + b.violations().get(0);
    }
    if (!b.cut()) {
      return BALANCED;
    }
    List<String> left = b.leftInFlight();
    return "balanced as far as a cut run goes: every check that holds at each step holds;"
        + " the "
        + r.inFlight()
        + " I/Os in flight leave "
        + left.size()
        + " of a drained run's checks open"
        + (left.isEmpty() ? "" : " (the first: " + left.get(0) + ")");
  }

  /** The time of each CPU that runs a submitter: what it was spent on, and its I/Os. */
  private static void cpus(RunReport r, PrintStream out) {
    RunResult res = r.result();
    out.printf(
        Locale.ROOT,
        "  CPUs        time of each CPU over %s (to the last completion)%n",
        seconds(VirtualTime.ns(res.endPs())));
    StringBuilder head =
        new StringBuilder(
            String.format(Locale.ROOT, "%12s %7s %12s %8s", "cpu", "thread", "IOPS", "ns/IO"));
    for (CpuTime t : shownTimes(res)) {
      head.append(String.format(Locale.ROOT, " %10s", t.label()));
    }
    out.println(head.append(String.format(Locale.ROOT, " %10s", "idle")));
    for (List<RunResult.Submitter> threads : res.threadsByCpu().values()) {
      long iops = 0;
      long ios = 0;
      for (RunResult.Submitter sub : threads) {
        iops += r.iops(sub.index());
        ios += sub.completed();
      }
      cpuRow(res, threads.get(0).cpu(), threadNames(threads), iops, ios, out);
    }
    for (RunResult.Worker w : res.workers()) {
      if (res.sharesCpu(w)) {
        continue; // its time is in its thread's row
      }
      cpuRow(
          res,
          w.cpu(),
          "wrk" + w.thread(),
          w.punted() * VirtualTime.NS_PER_SEC / r.ranNs(),
          w.punted(),
          out);
    }
  }

  /** The threads of a CPU as its row names them: "0", or "0,1" for two that share it. */
  static String threadNames(List<RunResult.Submitter> threads) {
    return String.join(",", threads.stream().map(sub -> String.valueOf(sub.index())).toList());
  }

  /**
   * How the tasks that share a CPU took turns on it (threads, a thread's io-wq worker where no CPU
   * was left for it, as {@code wrkN} after its thread, and a DM suspend's {@code dmsetup} where it
   * had no CPU of its own, last): the time each ran and waited on the run queue (runnable, another
   * running: {@code run_delay}), and its switches, voluntary (it slept) and not (preempted).
   * Printed only when some CPU runs more than one.
   */
  private static void runQueue(RunReport r, PrintStream out) {
    RunResult res = r.result();
    if (!res.sharedCpus()) {
      return;
    }
    out.printf(
        Locale.ROOT,
        "  run queue   tasks sharing a CPU take turns (CFS); time of each over %s%n",
        seconds(VirtualTime.ns(res.endPs())));
    out.println(
        String.format(
            Locale.ROOT,
            "%12s %7s %12s %10s %10s %12s %8s %8s",
            "cpu",
            "thread",
            "IOPS",
            "on CPU",
            "rq wait",
            "mean wait",
            "nvcsw",
            "nivcsw"));
    for (RunResult.Submitter sub : res.submitters()) {
      if (!res.shared(sub.cpu())) {
        continue; // alone on its CPU: it never waits
      }
      runQueueRow(
          res, sub.cpu(), Integer.toString(sub.index()), r.iops(sub.index()), sub.sched(), out);
      for (RunResult.Worker w : res.workers()) {
        if (w.thread() == sub.index() && res.sharesCpu(w)) {
          runQueueRow(res, w.cpu(), "wrk" + w.thread(), -1, w.sched(), out);
        }
      }
    }
    for (RunResult.Worker w : res.workers()) {
      if (!res.sharesCpu(w) && res.shared(w.cpu())) { // on a CPU of its own, beside dmsetup
        runQueueRow(res, w.cpu(), "wrk" + w.thread(), -1, w.sched(), out);
      }
    }
    long dmsetups = res.dms().stream().filter(dm -> dm.dmsetup() != null).count();
    for (RunResult.Dm dm : res.dms()) {
      if (res.dmsetupShares(dm)) {
        // one dmsetup process per suspended device: dmsetN names dm-N's where there are several
        String name = dmsetups > 1 ? "dmset" + dm.name().substring("dm-".length()) : "dmsetup";
        runQueueRow(res, dm.dmsetupCpu(), name, -1, dm.dmsetup(), out);
      }
    }
  }

  /**
   * One task's row of the run-queue table; {@code iops} -1 for an io-wq worker or dmsetup, which
   * read none.
   */
  private static void runQueueRow(
      RunResult res, int cpu, String task, long iops, RunResult.SchedInfo sched, PrintStream out) {
    long waits = sched.nivcsw() + sched.nvcsw();
    out.println(
        String.format(
            Locale.ROOT,
            "%12d %7s %12s %9.1f%% %9.1f%% %9.1f us %8d %8d",
            cpu,
            task,
            iops < 0 ? "-" : Long.toString(iops),
            share(sched.onCpuPs(), res.endPs()),
            share(sched.runDelayPs(), res.endPs()),
            waits == 0 ? 0.0 : sched.runDelayPs() / 1e6 / waits,
            sched.nvcsw(),
            sched.nivcsw()));
  }

  /**
   * What the CPUs' time is split into: every kind reports always show, and the others (the kworker)
   * where a CPU of the run spent time on them.
   */
  static List<CpuTime> shownTimes(RunResult res) {
    List<CpuTime> shown = new ArrayList<>();
    for (CpuTime t : CpuTime.values()) {
      boolean spent = false;
      for (RunResult.Submitter sub : res.submitters()) {
        spent |= res.ledger().time(sub.cpu(), t) > 0;
      }
      for (RunResult.Worker w : res.workers()) {
        spent |= res.ledger().time(w.cpu(), t) > 0;
      }
      if (t.alwaysShown() || spent) {
        shown.add(t);
      }
    }
    return shown;
  }

  /** One CPU's row: what it ran, its I/Os and its time split. */
  private static void cpuRow(
      RunResult res, int cpu, String thread, long iops, long ios, PrintStream out) {
    long total = res.ledger().totalPs(cpu);
    StringBuilder row =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%12d %7s %12d %8.1f",
                cpu,
                thread,
                iops,
                ios == 0 ? 0.0 : total / 1000.0 / ios));
    for (CpuTime t : shownTimes(res)) {
      row.append(
          String.format(Locale.ROOT, " %9.1f%%", share(res.ledger().time(cpu, t), res.endPs())));
    }
    out.println(
        row.append(
            String.format(
                Locale.ROOT, " %9.1f%%", share(Math.max(0, res.endPs() - total), res.endPs()))));
  }

  private static double share(long ps, long of) {
    return of == 0 ? 0.0 : 100.0 * ps / of;
  }

  /** The last line, the only one that may differ between two runs. */
  public static String wallLine(RunReport r) {
    return String.format(
        Locale.ROOT,
        "wall %.2f s, %s simulated I/Os per wall second",
        r.wallNanos() / 1e9,
        TIoUringFormat.iops(Math.round(r.simIosPerWallSec())).substring(5));
  }

  /** The run as a t/io_uring command line. */
  public static String commandLine(IoUringSettings u) {
    StringBuilder b =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "t/io_uring -d%d -s%d -c%d -b%d -p%d -B%d -F%d -n%d",
                u.depth(),
                u.batchSubmit(),
                u.batchComplete(),
                u.blockSize(),
                bit(u.polled()),
                bit(u.fixedBuffers()),
                bit(u.registerFiles()),
                u.threads()));
    if (!u.oDirect()) {
      b.append(" -O0");
    }
    if (!u.registerRing()) {
      b.append(" -X0");
    }
    if (!u.randomIo()) {
      b.append(" -R0");
    }
    // the loop the threads run, when it is not io_uring's reads
    b.append(u.nop() ? " -N1" : "").append(u.syncIo() ? " -S1" : "").append(u.aio() ? " -a1" : "");
    return b.append(' ').append(String.join(" ", u.files())).toString();
  }

  private static int bit(boolean b) {
    return b ? 1 : 0;
  }

  /** The profile, kernel, knobs and device of a run, on one line. */
  public static String model(BlksimSettings s) {
    String patches =
        s.kernel().names().isEmpty()
            ? "no seed patches"
            : "patches " + String.join(",", s.kernel().names());
    return String.format(
        Locale.ROOT,
        "profile %s, %s%s, iostats %s, per-CPU bio cache %s; %s",
        s.profile().name(),
        s.kernel().preset().isEmpty() ? "" : "kernel " + s.kernel().preset() + ", ",
        patches,
        s.kernel().iostats() ? "on" : "off",
        s.bioset().percpuCache() ? "on" : "off",
        s.ioUring().nop()
            ? "IORING_OP_NOP (-N1) on a ring without IOPOLL: no file, no block layer"
            : "null_blk " + nullBlk(s));
  }

  private static String nullBlk(BlksimSettings s) {
    var n = s.nullBlk();
    int cpus = s.cpu().count();
    int queues =
        Math.min(n.submitQueues(), cpus)
            + (s.kernel().nullBlkPoll() ? Math.min(n.pollQueues(), cpus) : 0);
    String elevator = blksim.config.Elevator.of(s).note();
    return String.format(
        Locale.ROOT,
        "submit_queues=%d %s hw_queue_depth=%d irqmode=%d%s",
        n.submitQueues(),
        s.kernel().nullBlkPoll() ? "poll_queues=" + n.pollQueues() : "no poll queues (before 5.16)",
        n.hwQueueDepth(),
        n.irqmode().ordinal(),
        // elevator_get_default: one hardware queue gets mq-deadline unless no_sched=1; and
        // blk_mq_complete_request_remote raises BLOCK_SOFTIRQ for irqmode=1 on one queue
        (elevator.isEmpty() ? "" : "; " + elevator)
            + (queues == 1 && n.irqmode() == NullBlkSettings.IrqMode.SOFTIRQ
                ? "; irqmode=1 on one hardware queue ends requests in BLOCK_SOFTIRQ, which"
                    + " ksoftirqd runs where the thread next schedules"
                : ""));
  }

  /** mq-deadline's part of a hardware queue's line, or "". */
  private static String sched(RunResult.Sched d) {
    return d == null
        ? ""
        : String.format(
            Locale.ROOT,
            " through mq-deadline, each with one of %d driver tags; dd->lock taken %d times, %d"
                + " of them spun for (%.1f us in all)%s",
            d.driverTags(),
            d.lockTaken(),
            d.lockSpun(),
            d.lockWaitPs() / 1e6,
            d.waited() == 0
                ? ""
                : String.format(
                    Locale.ROOT,
                    "; %d found no driver tag and waited on hctx->dispatch, %d kblockd restarts",
                    d.waited(),
                    d.restarts()));
  }

  /** Virtual time that ran, in the unit that shows it: s, ms or µs. */
  static String elapsed(long ns) {
    return ns >= VirtualTime.NS_PER_SEC
        ? seconds(ns)
        : ns >= 1_000_000
            ? String.format(Locale.ROOT, "%.3f ms", ns / 1e6)
            : String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
  }

  private static String seconds(long ns) {
    return String.format(Locale.ROOT, "%.3f s", ns / 1e9);
  }
}

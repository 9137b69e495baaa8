package blksim.actors.tiouring;

import blksim.actors.cpu.Cpu;
import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Models t/io_uring's main thread: at the end of every status interval it reads every submitter's
 * {@code done}, {@code calls} and {@code reaps} and reports their increase; when the runtime is
 * over it sets every submitter's {@code finish} ({@code do_finish("timeout")}). Unlike t/io_uring,
 * whose main thread sleeps one second at a time and prints N-1 lines for {@code -r N}, it reports
 * every interval, the last included.
 */
public final class MainThread extends AbstractComponent<MainThread.Command> {

  /** Everything the main thread understands. */
  public sealed interface Command extends SimMessage permits Start, Tick, FromCpu, Interrupted {}

  /** Starts the clock of the status intervals. */
  public record Start(long atPs) implements Command {}

  /**
   * SIGINT or SIGTERM reached t/io_uring ({@code sig_int}: "Exiting on signal", then {@code
   * finish}): the submitters stop, their I/Os in flight complete, and the run ends there.
   */
  public record Interrupted(long atPs) implements Command {}

  /** The end of a status interval. */
  private record Tick(long atPs) implements Command {}

  /** A CPU's report, through the main thread's adapter. */
  public record FromCpu(Cpu.Report report) implements Command {
    @Override
    public long atPs() {
      return report.atPs();
    }
  }

  private final SimRef<Command> self;
  private final SimRef<Cpu.Report> reports;
  private final List<SimRef<Cpu.Command>> submitters;
  private final long intervalPs;
  private final long runtimePs;
  private final StatusSink sink;
  private int index;
  private long intervalStartPs;
  private int received;
  private long done;
  private long calls;
  private long reaps;
  private long lastDone;
  private long lastCalls;
  private long lastReaps;
  private final long[] doneNow;
  private final long[] doneBefore;
  private final Histogram[] latencyNow;
  private boolean finish;
  private boolean finished;

  /**
   * @param intervalPs length of a status interval, in ps
   * @param runtimePs the runtime, in ps
   */
  public MainThread(
      SimRef<Command> self,
      List<SimRef<Cpu.Command>> submitters,
      long intervalPs,
      long runtimePs,
      StatusSink sink) {
    super(self.name(), Command.class);
    this.self = self;
    this.reports = self.adapt(FromCpu::new);
    this.submitters = List.copyOf(submitters);
    this.intervalPs = intervalPs;
    this.runtimePs = runtimePs;
    this.sink = sink;
    this.doneNow = new long[submitters.size()];
    this.doneBefore = new long[submitters.size()];
    this.latencyNow = new Histogram[submitters.size()];
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(Start.class, this::onStart)
        .on(Tick.class, this::onTick)
        .on(FromCpu.class, this::onCpuReport)
        .on(Interrupted.class, this::onInterrupted)
        .build();
  }

  private void onStart(Start start, Outbox out) {
    intervalStartPs = start.atPs();
    out.send(self, new Tick(Math.min(start.atPs() + intervalPs, runtimePs)));
  }

  private void onCpuReport(FromCpu m, Outbox out) {
    if (m.report() instanceof Cpu.Counters c) {
      onCounters(c, out);
    } else {
      onThreadExited((Cpu.ThreadExited) m.report(), out);
    }
  }

  private void onInterrupted(Interrupted m, Outbox out) {
    if (!finished) {
      sink.interrupted(m.atPs());
      finish = true;
      stop(m.atPs(), out);
    }
  }

  private void onThreadExited(Cpu.ThreadExited m, Outbox out) {
    sink.threadExited(m.atPs(), m.lines());
    // a thread that hangs sets no finish: the others, and the status lines, go on to the runtime
    finish |= !m.hung();
  }

  /** The main loop sees {@code finish}: it tells every submitter and prints nothing more. */
  private void stop(long atPs, Outbox out) {
    if (!finished) {
      finished = true;
      for (int i = 0; i < submitters.size(); i++) {
        out.send(submitters.get(i), new Cpu.Finish(atPs, i));
      }
    }
  }

  private void onTick(Tick tick, Outbox out) {
    if (finish) {
      stop(tick.atPs(), out);
      return;
    }
    index++;
    received = 0;
    done = calls = reaps = 0;
    for (int i = 0; i < submitters.size(); i++) {
      out.send(
          submitters.get(i),
          new Cpu.ReadCounters(tick.atPs(), i, reports, sink.wantsIntervalLatency()));
    }
  }

  private void onCounters(Cpu.Counters c, Outbox out) {
    done += c.done();
    doneNow[c.submitter()] = c.done();
    latencyNow[c.submitter()] = c.intervalLatencyNs();
    calls += c.calls();
    reaps += c.reaps();
    if (++received < submitters.size() || finished) {
      return;
    }
    if (finish) {
      stop(c.atPs(), out);
      return;
    }
    long now = c.atPs();
    List<Long> bySubmitter = new ArrayList<>();
    List<Histogram> latency = new ArrayList<>();
    for (int i = 0; i < doneNow.length; i++) {
      bySubmitter.add(doneNow[i] - doneBefore[i]);
      doneBefore[i] = doneNow[i];
      if (latencyNow[i] != null) {
        latency.add(latencyNow[i]);
      }
    }
    sink.interval(
        new StatusSink.Interval(
            index,
            intervalStartPs,
            now,
            done - lastDone,
            calls - lastCalls,
            reaps - lastReaps,
            bySubmitter,
            latency));
    lastDone = done;
    lastCalls = calls;
    lastReaps = reaps;
    intervalStartPs = now;
    if (now >= runtimePs) {
      sink.timeout(now);
      for (int i = 0; i < submitters.size(); i++) {
        out.send(submitters.get(i), new Cpu.Finish(now, i));
      }
    } else {
      out.send(self, new Tick(Math.min(now + intervalPs, runtimePs)));
    }
  }
}

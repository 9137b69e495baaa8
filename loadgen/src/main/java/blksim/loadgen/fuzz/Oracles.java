package blksim.loadgen.fuzz;

import blksim.actors.topology.RunResult;
import blksim.loadgen.report.RunReport;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The oracles every generated case faces, on a short virtual run:
 *
 * <ol>
 *   <li>it runs (exit 0), or it is refused in one line with exit status 2; an internal error (1),
 *       books that do not balance (3) or anything else fails;
 *   <li>the actors and the sequential engine print the same bytes, and a second run the same bytes
 *       again (on the sequential engine, the cheap one: a difference there is state kept between
 *       runs, which the engines share);
 *   <li>the accounting adds up: no CPU's split (submit, poll, IRQ, lock wait) exceeds the run, so
 *       idle is what is left; completions are at most submissions; Little's law;
 *   <li>one metamorphic relation of {@link Relations}, chosen by the case's number.
 * </ol>
 */
public final class Oracles implements Fuzzer.Check {
  private final Build akka;
  private final Build sequential;
  private final Relations relations;

  /** Oracles over this build, in this JVM. */
  public Oracles() {
    this(
        new ThisBuild(List.of("--engine", "akka")),
        new ThisBuild(List.of("--engine", "sequential")));
  }

  /**
   * @param akka runs a command line on the actors
   * @param sequential runs it on the plain event loop
   */
  public Oracles(Build akka, Build sequential) {
    this.akka = akka;
    this.sequential = sequential;
    this.relations = new Relations(sequential);
  }

  /** The verdict on case {@code index}, {@code c}. */
  @Override
  public Verdict check(long index, Case c) {
    Outcome a = akka.run(c.args());
    Verdict first = status(a);
    if (!(first instanceof Verdict.Ran)) {
      return first;
    }
    if (a.report() == null) {
      // exit 0 with no run (a help text): nothing for the other oracles to read
      return new Verdict.Refused(
          "no run: " + reason(a.out().strip().lines().findFirst().orElse("")));
    }
    Outcome s = sequential.run(c.args());
    if (!a.sameBytes(s)) {
      return new Verdict.Failed("engines differ", "akka vs sequential: " + a.firstDifference(s));
    }
    Outcome again = sequential.run(c.args());
    if (!s.sameBytes(again)) {
      return new Verdict.Failed("rerun differs", s.firstDifference(again));
    }
    String broken = accounting(s.report());
    if (broken != null) {
      return new Verdict.Failed("accounting", broken);
    }
    return relations.check(index, c, s);
  }

  /** Whether a run ended as a run or a refusal may. */
  static Verdict status(Outcome o) {
    switch (o.exit()) {
      case 0:
        if (o.report() == null && o.out().isEmpty()) {
          return new Verdict.Failed("no output", "exit 0 and nothing printed");
        }
        return new Verdict.Ran(null);
      case 2:
        List<String> lines = o.err().strip().lines().toList();
        if (lines.size() != 1 || o.err().contains("\tat ") || o.err().contains("Exception")) {
          return new Verdict.Failed(
              "refusal not one line", lines.size() + " lines on stderr: " + o.errLine());
        }
        return new Verdict.Refused(reason(lines.get(0)));
      case 3:
        return new Verdict.Failed("books", o.errLine());
      default:
        return new Verdict.Failed("exit " + o.exit(), o.errLine());
    }
  }

  /** A refusal with its numbers taken out, so that refusals alike count as one reason. */
  static String reason(String line) {
    String r = line.replaceAll("-?\\d+(\\.\\d+)?", "N").replaceAll("/dev/\\S+", "DEV");
    return r.length() > 110 ? r.substring(0, 107) + "..." : r;
  }

  /** The first accounting rule that {@code r} breaks, or null. */
  static String accounting(RunReport r) {
    RunResult res = r.result();
    long endPs = res.endPs();
    for (int cpu : res.busyCpus()) {
      long busyPs = res.ledger().totalPs(cpu);
      if (busyPs > endPs) {
        return String.format(
            Locale.ROOT,
            "cpu%d's split adds up to %d ps, more than the run's %d ps: idle would be negative",
            cpu,
            busyPs,
            endPs);
      }
    }
    // The end-of-run books imply these three today; the oracle keeps them apart from the books'
    // code.
    long accepted = res.submitters().stream().mapToLong(RunResult.Submitter::accepted).sum();
    if (r.completed() > accepted) {
      return r.completed() + " completions of " + accepted + " SQEs the kernel accepted";
    }
    if (res.done() > accepted) {
      return "t/io_uring counts " + res.done() + " done of " + accepted + " the kernel accepted";
    }
    if (res.reaps() > r.completed()) {
      return res.reaps() + " CQEs reaped of " + r.completed() + " completions";
    }
    return littlesLaw(res);
  }

  /**
   * Little's law, L = lambda W: the mean number of I/Os in flight (counted from each SQE's stamp to
   * its CQE's reap, time-weighted over the run) against the reap rate times the histogram's mean
   * latency. The two are kept apart in the model, so a latency recorded in the wrong unit, twice,
   * or not at all shows. The tolerance is what the histogram itself loses: values are recorded in
   * whole nanoseconds (up to 1 ns short each) and HdrHistogram at 3 significant digits keeps each
   * within 1 part in 1,024 (so 0.1 %); and each I/O left in flight at the end weighs in L for at
   * most the whole run without a latency: up to 1 each.
   */
  static String littlesLaw(RunResult res) {
    long endPs = res.endPs();
    Histogram h = res.latencyNs();
    if (endPs == 0 || h.getTotalCount() == 0) {
      return null;
    }
    double lambdaW = h.getTotalCount() * h.getMean() * 1000.0 / endPs;
    double inFlight = 0;
    long leftInFlight = 0;
    for (RunResult.Submitter s : res.submitters()) {
      inFlight += s.meanInFlight();
      leftInFlight += s.inFlightAtEnd();
    }
    double tolerance = 0.001 * inFlight + h.getTotalCount() * 1000.0 / endPs + leftInFlight + 1e-6;
    if (Math.abs(inFlight - lambdaW) > tolerance) {
      return String.format(
          Locale.ROOT,
          "Little's law: %.4f I/Os in flight on average, but %d reaped over %d ps at a mean of"
              + " %.1f ns make %.4f (tolerance %.4f)",
          inFlight,
          h.getTotalCount(),
          endPs,
          h.getMean(),
          lambdaW,
          tolerance);
    }
    return null;
  }
}

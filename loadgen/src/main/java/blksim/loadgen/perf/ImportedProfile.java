package blksim.loadgen.perf;

import blksim.config.ConfigError;
import blksim.config.CpuProfile;
import blksim.config.MicroArch;
import blksim.config.OneLine;
import blksim.config.Scenario;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;

/**
 * A profile made from a pasted {@code perf report} and the IOPS of its run ({@code blksim profile
 * import}, docs/your-box.md): each symbol's ns/IO is its share times 1e9 / IOPS; the steps that
 * hold the symbols take those ns as this box's (scale 1.0); the steps the report does not show keep
 * the base profile's ns, times one factor fitted so that the seed command ({@code t/io_uring -d32
 * -s32 -c32 -b512 -p1 /dev/nullb0}) on the profile runs at the measured IOPS.
 *
 * @param measured ns/IO per step the report shows, before the per-call steps' conversion
 * @param steps every step's value in the file, ns per its unit
 * @param kept the steps the report does not show (base's ns times {@code keptFactor})
 * @param keptFactor the fitted factor of the kept steps
 * @param seedIops what the seed command gives on the profile
 */
public record ImportedProfile(
    Request request,
    PerfReport report,
    Map<String, Double> measured,
    Map<String, Double> steps,
    Set<String> kept,
    double keptFactor,
    long seedIops,
    MicroArch facts,
    String factsFrom) {

  /** A name of a profile key: what reference.conf's profile names look like. */
  static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

  /** Bounds of the fitted factor of the kept steps. */
  static final double MIN_KEPT = 0.01;

  static final double MAX_KEPT = 20;

  /** The fit's target: within this of the measured IOPS, or two refinements, whichever first. */
  static final double FIT_TOLERANCE = 0.002;

  /**
   * What to import.
   *
   * @param source how the listing and the file's header name the report (its file name)
   */
  public record Request(String source, double iops, String name, String base, String cpu) {}

  /** Checks the request's names and numbers before the report is read. */
  public static void check(Request q) {
    Set<String> builtIn = builtInProfiles();
    if (!(q.iops() > 0) || !Double.isFinite(q.iops())) {
      throw new ConfigError(
          "--iops "
              + OneLine.clipped(String.valueOf(q.iops()))
              + ": not a positive number (the IOPS of the run the profile was taken on, e.g."
              + " --iops 4250000 or 4.25M)");
    }
    if (!builtIn.contains(q.base())) {
      throw new ConfigError(
          "--base "
              + OneLine.clipped(q.base())
              + " is not a profile: known "
              + String.join(", ", builtIn));
    }
    if (q.cpu() != null && !CpuPresets.PROFILE_OF.containsKey(q.cpu())) {
      throw new ConfigError(
          "--cpu "
              + OneLine.clipped(q.cpu())
              + " is not a micro-architecture preset: known "
              + String.join(", ", CpuPresets.PROFILE_OF.keySet()));
    }
    if (!NAME.matcher(q.name()).matches()) {
      throw new ConfigError(
          "--name "
              + OneLine.quoted(OneLine.clipped(q.name()))
              + " is not a profile key: lower-case letters, digits and '-', starting with a letter"
              + " or digit, at most 63 characters (e.g. my-box-2024)");
    }
    if (builtIn.contains(q.name())) {
      throw new ConfigError(
          "--name "
              + q.name()
              + " is a profile of blksim already: give the imported one a name of its own");
    }
  }

  /** Parses a --iops value: a number, or one with a K or M suffix as t/io_uring prints it. */
  public static double iops(String text) {
    String t = text.strip();
    double mult = 1;
    if (t.endsWith("M") || t.endsWith("m")) {
      mult = 1e6;
      t = t.substring(0, t.length() - 1);
    } else if (t.endsWith("K") || t.endsWith("k")) {
      mult = 1e3;
      t = t.substring(0, t.length() - 1);
    }
    try {
      if (!t.matches("[0-9]+(\\.[0-9]+)?([eE][+]?[0-9]+)?")) {
        throw new NumberFormatException(t);
      }
      double v = Double.parseDouble(t) * mult;
      if (!(v > 0) || !Double.isFinite(v) || v > 1e12) {
        throw new NumberFormatException(t);
      }
      return v;
    } catch (NumberFormatException e) {
      throw new ConfigError(
          "--iops "
              + OneLine.quoted(OneLine.clipped(text))
              + ": not a positive number of I/Os per second up to 1e12 (e.g. --iops 4250000,"
              + " 4.25M or 4250K)");
    }
  }

  static Set<String> builtInProfiles() {
    return new TreeSet<>(ConfigFactory.defaultReference().getObject("blksim.profiles").keySet());
  }

  /**
   * Imports {@code report}.
   *
   * @param seedNsPerIo the seed command's ns per I/O (1e9 / IOPS) with a profile file's text
   */
  public static ImportedProfile of(
      Request q, PerfReport report, ToDoubleFunction<String> seedNsPerIo) {
    check(q);
    List<String> known = CpuProfile.knownSteps(ConfigFactory.defaultReference());
    CpuProfile base = profile(q.base());
    String factsFrom = q.cpu() == null ? q.base() : CpuPresets.PROFILE_OF.get(q.cpu());
    MicroArch facts = profile(factsFrom).facts();
    double nsPerIo = 1e9 / q.iops();
    Map<String, Double> measured = new TreeMap<>();
    for (PerfEntry e : report.entries()) {
      SymbolMap.Place p = SymbolMap.place(e);
      for (Map.Entry<String, Double> s : p.steps().entrySet()) {
        measured.merge(s.getKey(), e.selfPct() / 100 * nsPerIo * s.getValue(), Double::sum);
      }
    }
    Set<String> kept = new TreeSet<>(known);
    kept.removeAll(measured.keySet());
    Map<String, Double> shown = new LinkedHashMap<>();
    for (String step : known) {
      if (measured.containsKey(step)) {
        shown.put(step, measured.get(step) * SymbolMap.iosPerUnit(step));
      }
    }
    ToDoubleFunction<Double> at =
        f ->
            seedNsPerIo.applyAsDouble(
                hocon(
                    q,
                    report,
                    steps(known, shown, kept, base, f),
                    facts,
                    factsFrom,
                    kept,
                    f,
                    measured,
                    0));
    double f = 1;
    double t1 = at.applyAsDouble(1.0);
    if (!kept.isEmpty()) {
      double fb = 0.5;
      double tb = at.applyAsDouble(fb);
      double fa = 1;
      double ta = t1;
      for (int i = 0; i < 3; i++) {
        double slope = (ta - tb) / (fa - fb);
        if (!(slope > 0)) {
          break;
        }
        f = Math.max(MIN_KEPT, Math.min(MAX_KEPT, fa + (nsPerIo - ta) / slope));
        double tf = at.applyAsDouble(f);
        fb = fa;
        tb = ta;
        fa = f;
        ta = tf;
        if (Math.abs(tf - nsPerIo) / nsPerIo < FIT_TOLERANCE || f == MIN_KEPT || f == MAX_KEPT) {
          break;
        }
      }
      t1 = ta;
    }
    Map<String, Double> steps = steps(known, shown, kept, base, f);
    return new ImportedProfile(
        q, report, measured, steps, kept, f, Math.round(1e9 / t1), facts, factsFrom);
  }

  private static Map<String, Double> steps(
      List<String> known, Map<String, Double> shown, Set<String> kept, CpuProfile base, double f) {
    Map<String, Double> steps = new LinkedHashMap<>();
    for (String step : known) {
      steps.put(step, kept.contains(step) ? base.scaledNs(step) * f : shown.get(step));
    }
    return steps;
  }

  /** A built-in profile, merged with what it extends. */
  static CpuProfile profile(String name) {
    return new Scenario().option("blksim.cpu.profile", name, "--base").settings().profile();
  }

  /** The profile file's text. */
  public String hocon() {
    return hocon(request, report, steps, facts, factsFrom, kept, keptFactor, measured, seedIops);
  }

  private static String hocon(
      Request q,
      PerfReport report,
      Map<String, Double> steps,
      MicroArch facts,
      String factsFrom,
      Set<String> kept,
      double f,
      Map<String, Double> measured,
      long seedIops) {
    StringBuilder b = new StringBuilder();
    String n = "\n";
    b.append("# blksim profile ")
        .append(q.name())
        .append(", written by blksim profile import")
        .append(n);
    b.append("# from the perf report ")
        .append(OneLine.of(q.source()))
        .append(": ")
        .append(report.entries().size())
        .append(" symbols")
        .append(report.children() ? " (Self column of a report with Children)" : "")
        .append(report.section() == null ? "" : ", section " + OneLine.of(report.section()))
        .append(
            String.format(Locale.ROOT, ", %.0f IOPS = %.2f ns per I/O.", q.iops(), 1e9 / q.iops()))
        .append(n);
    b.append("# Each symbol's ns/IO is its share x 1e9 / IOPS, summed into the step that holds it")
        .append(n);
    b.append("# (the alias table of docs/your-box.md 3); kernel symbols no step holds are in")
        .append(n);
    b.append(
            "# unattributed. Steps are ns on this box, per I/O unless their comment says per call;")
        .append(n);
    b.append(
            String.format(
                Locale.ROOT,
                "# those the report does not show are %s's, times %.4f: the factor that makes",
                q.base(),
                f))
        .append(n);
    b.append("# t/io_uring -d32 -s32 -c32 -b512 -p1 /dev/nullb0 run at the measured IOPS")
        .append(seedIops > 0 ? " (it gives " + seedIops + ")." : ".")
        .append(n);
    b.append("# Use: blksim io_uring --profile-file FILE --profile ")
        .append(q.name())
        .append(" ...")
        .append(n);
    b.append("blksim.profiles.").append(q.name()).append(" {").append(n);
    b.append("  extends = ").append(q.base()).append(n);
    b.append("  description = \"")
        .append(
            ("Imported from the perf report " + OneLine.of(q.source()))
                .replace("\\", "/")
                .replace("\"", "'"))
        .append(String.format(Locale.ROOT, " at %.0f IOPS", q.iops()))
        .append("\"")
        .append(n);
    b.append("  # The steps below are this box's ns: the shape's multiplier is 1.").append(n);
    b.append("  scale = 1.0").append(n);
    b.append("  # The facts of ").append(factsFrom).append(n);
    b.append("  facts {").append(n);
    for (Map.Entry<String, Double> e : factMap(facts).entrySet()) {
      b.append("    ").append(e.getKey()).append(" = ").append(num(e.getValue())).append(n);
    }
    b.append("  }").append(n);
    b.append("  steps {").append(n);
    for (Map.Entry<String, Double> e : steps.entrySet()) {
      String step = e.getKey();
      double units = SymbolMap.iosPerUnit(step);
      String unit =
          units == 1 ? "" : units > 1 ? ", per call (" + num(units) + " I/Os)" : ", per call";
      b.append("    ")
          .append(step)
          .append(" = ")
          .append(num(e.getValue()))
          .append(
              kept.contains(step)
                  ? "  # kept: not in the report" + unit
                  : String.format(
                      Locale.ROOT, "  # measured: %.3f ns/IO%s", measured.get(step), unit))
          .append(n);
    }
    b.append("  }").append(n);
    b.append("}").append(n);
    return b.toString();
  }

  /** The facts under their keys, in MicroArch's order. */
  static Map<String, Double> factMap(MicroArch f) {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("clock-ghz", f.clockGhz());
    m.put("l1-load-cycles", f.l1LoadCycles());
    m.put("l2-load-cycles", f.l2LoadCycles());
    m.put("call-cycles", f.callCycles());
    m.put("store-cycles", f.storeCycles());
    m.put("rep-stos-startup-cycles", f.repStosStartupCycles());
    m.put("rep-stos-qword-cycles", f.repStosQwordCycles());
    m.put("atomic-cycles", f.atomicCycles());
    m.put("irq-save-restore-cycles", f.irqSaveRestoreCycles());
    m.put("cacheline-transfer-ns", f.cachelineTransferNs());
    m.put("ktime-get-ns", f.ktimeGetNs());
    m.put("syscall-ns", f.syscallNs());
    m.put("blkg-associate-ns", f.blkgAssociateNs());
    m.put("tick-ns", f.tickNs());
    m.put("sched-softirq-ns", f.schedSoftirqNs());
    m.put("vmstat-kworker-ns", f.vmstatKworkerNs());
    return m;
  }

  static String num(double v) {
    String s = String.format(Locale.ROOT, "%.4f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }

  /** The listing: what was mapped where, unmapped, user space, kept, and the fit. */
  public List<String> listing() {
    List<String> out = new ArrayList<>();
    double nsPerIo = 1e9 / request.iops();
    out.add(
        String.format(
            Locale.ROOT,
            "blksim profile import: %s, %d symbols%s, %.0f IOPS = %.2f ns/IO; %d line(s) skipped,"
                + " %d wrapped line(s) joined",
            OneLine.of(request.source()),
            report.entries().size(),
            report.children() ? " (Self column; the report has Children)" : "",
            request.iops(),
            nsPerIo,
            report.skipped(),
            report.joined()));
    if (report.sections().size() > 1) {
      out.add(
          "  the paste holds sections "
              + String.join(", ", report.sections())
              + ": read "
              + report.section()
              + " (--section NAME reads another)");
    }
    Map<SymbolMap.Kind, List<String>> byKind = new LinkedHashMap<>();
    Map<SymbolMap.Kind, Double> sums = new LinkedHashMap<>();
    for (SymbolMap.Kind k : SymbolMap.Kind.values()) {
      byKind.put(k, new ArrayList<>());
      sums.put(k, 0.0);
    }
    for (PerfEntry e : report.entries()) {
      SymbolMap.Place p = SymbolMap.place(e);
      double ns = e.selfPct() / 100 * nsPerIo;
      sums.merge(p.kind(), ns, Double::sum);
      String where =
          p.kind() == SymbolMap.Kind.FACTS
              ? "priced by the facts: " + p.fact()
              : String.join(" + ", new TreeSet<>(p.steps().keySet()));
      byKind
          .get(p.kind())
          .add(
              String.format(
                  Locale.ROOT, "    %6.2f%%  %8.2f  %-34s %s", e.selfPct(), ns, e.symbol(), where));
    }
    String[] titles = {
      "kernel, mapped onto steps",
      "kernel, priced by the facts (no step; the fit takes them in)",
      "user space, t/io_uring's own (row 1)",
      "user space, other (fio, libc, vDSO): fio_user_space",
      "kernel, unmapped: summed into unattributed"
    };
    int i = 0;
    for (SymbolMap.Kind k : SymbolMap.Kind.values()) {
      List<String> lines = byKind.get(k);
      out.add(
          String.format(
              Locale.ROOT,
              "  %s: %d symbol(s), %.2f ns/IO",
              titles[i++],
              lines.size(),
              sums.get(k)));
      if (!lines.isEmpty()) {
        out.add("     share     ns/IO  symbol                             step");
        out.addAll(lines);
      }
    }
    out.add("  steps of profile " + request.name() + " (ns per unit; per I/O unless per call):");
    for (Map.Entry<String, Double> e : steps.entrySet()) {
      String step = e.getKey();
      out.add(
          String.format(
              Locale.ROOT,
              "    %-30s %9.3f  %s",
              step,
              e.getValue(),
              kept.contains(step)
                  ? String.format(
                      Locale.ROOT, "kept: %s's value x %.4f", request.base(), keptFactor)
                  : String.format(Locale.ROOT, "measured, %.3f ns/IO", measured.get(step))));
    }
    double shownPct = report.entries().stream().mapToDouble(PerfEntry::selfPct).sum();
    out.add(
        String.format(
            Locale.ROOT,
            "  the report shows %.2f%% of the cycles (%.2f ns/IO); the %d kept steps take the rest"
                + " at %.4f x %s's; facts of %s",
            shownPct,
            shownPct / 100 * nsPerIo,
            kept.size(),
            keptFactor,
            request.base(),
            factsFrom));
    out.add(
        String.format(
            Locale.ROOT,
            "  seed command on %s: %d IOPS, %+.2f%% from the %.0f measured%s",
            request.name(),
            seedIops,
            100 * (seedIops - request.iops()) / request.iops(),
            request.iops(),
            Math.abs(seedIops - request.iops()) / request.iops() > 0.02
                ? keptFactor <= MIN_KEPT
                    ? " (the shown steps alone cost more than the measured ns/IO)"
                    : " (the kept steps cannot make up the difference)"
                : ""));
    return out;
  }
}

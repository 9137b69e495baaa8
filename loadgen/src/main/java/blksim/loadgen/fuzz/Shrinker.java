package blksim.loadgen.fuzz;

import blksim.loadgen.fuzz.Case.Opt;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Shrinks a failing case to one that a person can read: it tries, in order, dropping an option,
 * dropping a file, a lower device number, a smaller number, a shorter list, a shorter run, and
 * keeps the first candidate that still fails the same way; it starts over from each one kept until
 * no candidate fails, or until it has spent its runs. Greedy, like delta debugging's one-minimal
 * search: no single step of the result still fails.
 */
public final class Shrinker {
  private static final Pattern NUMBER = Pattern.compile("-?\\d+");
  private static final Pattern DURATION = Pattern.compile("(\\d+)us");

  private final Predicate<Case> fails;
  private final int maxRuns;
  private int runs;

  /**
   * @param fails whether a candidate still fails the way the original did
   * @param maxRuns the most candidates to run
   */
  public Shrinker(Predicate<Case> fails, int maxRuns) {
    this.fails = fails;
    this.maxRuns = maxRuns;
  }

  /** The smallest failing case found from {@code failing}. */
  public Case shrink(Case failing) {
    Case current = failing;
    boolean progress = true;
    while (progress && runs < maxRuns) {
      progress = false;
      for (Case candidate : candidates(current)) {
        if (runs >= maxRuns) {
          break;
        }
        runs++;
        if (fails.test(candidate)) {
          current = candidate;
          progress = true;
          break;
        }
      }
    }
    return current;
  }

  /** Candidates ran so far. */
  public int runs() {
    return runs;
  }

  /** Every one-step simplification of {@code c}, the biggest steps first. */
  static List<Case> candidates(Case c) {
    Set<Case> out = new LinkedHashSet<>();
    for (Opt o : c.options()) {
      if (!c.isPinned(o.name())) {
        out.add(c.without(o.name()));
      }
    }
    List<String> files = c.files();
    if (files.size() > 1) {
      for (int i = 0; i < files.size(); i++) {
        List<String> fewer = new ArrayList<>(files);
        fewer.remove(i);
        out.add(c.withFiles(fewer));
      }
    }
    for (int i = 0; i < files.size(); i++) {
      if (!files.get(i).equals("/dev/nullb0")) {
        List<String> lower = new ArrayList<>(files);
        lower.set(i, "/dev/nullb0");
        out.add(c.withFiles(lower));
      }
    }
    for (Opt o : c.options()) {
      if (c.isPinned(o.name()) && !o.name().equals(Case.RUNTIME)) {
        continue;
      }
      for (String smaller : smaller(o.value())) {
        out.add(c.with(o.name(), smaller));
      }
    }
    out.remove(c);
    return new ArrayList<>(out);
  }

  /** Smaller values of one option: fewer list elements, smaller numbers, a shorter duration. */
  static List<String> smaller(String value) {
    List<String> out = new ArrayList<>();
    if (value.contains(",")) {
      List<String> parts = List.of(value.split(","));
      for (int i = 0; i < parts.size(); i++) {
        List<String> fewer = new ArrayList<>(parts);
        fewer.remove(i);
        out.add(String.join(",", fewer));
      }
      return out;
    }
    Matcher d = DURATION.matcher(value);
    if (d.matches()) {
      long us = Long.parseLong(d.group(1));
      for (long v : new long[] {10, us / 2}) {
        if (v >= 10 && v < us) {
          out.add(v + "us");
        }
      }
      return out;
    }
    if (NUMBER.matcher(value).matches()) {
      long v = Long.parseLong(value);
      for (long w : new long[] {0, 1, v / 2, v - v / 4, v - v / 8, v - 1}) {
        if (w >= 0 && w < v && !out.contains(String.valueOf(w))) {
          out.add(String.valueOf(w));
        }
      }
    }
    return out;
  }
}

package blksim.loadgen.fuzz;

/**
 * The differential check: a case runs on this build and on another, and both must print the same
 * bytes and end the same way. This is how a change meant to be behaviour-neutral shows that it is.
 */
public final class Differential implements Fuzzer.Check {
  private final Build mine;
  private final Build theirs;

  public Differential(Build mine, Build theirs) {
    this.mine = mine;
    this.theirs = theirs;
  }

  @Override
  public Verdict check(long index, Case c) {
    Outcome a = mine.run(c.args());
    Outcome b = theirs.run(c.args());
    if (!a.sameBytes(b)) {
      return new Verdict.Failed("differs from " + theirs.name(), a.firstDifference(b));
    }
    // The same bytes: no difference, whatever the run did (the oracles are the other mode's job).
    Verdict v = Oracles.status(a);
    return v instanceof Verdict.Failed ? new Verdict.Ran(null) : v;
  }
}

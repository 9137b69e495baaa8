package blksim.loadgen.fuzz;

/** What the oracles said of one case. */
public sealed interface Verdict {

  /**
   * It ran, and every oracle held.
   *
   * @param relation the metamorphic relation also checked, or null when none applied
   */
  record Ran(String relation) implements Verdict {}

  /**
   * It was refused in one line with exit status 2: a feature not modelled yet, or a value outside
   * what blksim accepts.
   *
   * @param reason the refusal with its numbers taken out, so that alike refusals count together
   */
  record Refused(String reason) implements Verdict {}

  /**
   * An oracle failed.
   *
   * @param oracle which one: the shrinker keeps a case only while the same oracle fails
   * @param detail what it saw, in one line
   */
  record Failed(String oracle, String detail) implements Verdict {}
}

package blksim.loadgen.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.loadgen.fuzz.Case.Opt;
import java.util.List;
import org.junit.jupiter.api.Test;

class OraclesTest {
  private static final Case SEED_CASE =
      new Case(
          List.of(
              new Opt("-d", "32"),
              new Opt("-s", "32"),
              new Opt("-c", "32"),
              new Opt("-b", "512"),
              new Opt(Case.RUNTIME, "200us")),
          List.of("/dev/nullb0"));

  @Test
  void shouldPassTheSeedCommandWithLittlesLawHolding() {
    Outcome o = new ThisBuild(List.of("--engine", "sequential")).run(SEED_CASE.args());
    assertEquals(0, o.exit(), o.err());
    assertNull(Oracles.accounting(o.report()));
    double inFlight = o.report().result().submitters().get(0).meanInFlight();
    assertTrue(inFlight > 28 && inFlight <= 32, "about 32 in flight at -d32: " + inFlight);
    assertInstanceOf(Verdict.Ran.class, new Oracles().check(3, SEED_CASE));
  }

  @Test
  void shouldCallARefusalOfOneLineARefusalAndAnythingElseAFailure() {
    assertEquals(
        new Verdict.Refused("-d N: IO depth must be N to N"),
        Oracles.status(new Outcome(2, "", "-d 0: IO depth must be 1 to 32768\n", null)));
    assertInstanceOf(
        Verdict.Failed.class,
        Oracles.status(new Outcome(2, "", "bad\n\tat blksim.Foo.bar(Foo.java:1)\n", null)));
    assertEquals(
        "books", ((Verdict.Failed) Oracles.status(new Outcome(3, "", "leak\n", null))).oracle());
    assertEquals(
        "exit 1", ((Verdict.Failed) Oracles.status(new Outcome(1, "", "boom\n", null))).oracle());
  }

  @Test
  void shouldIgnoreOnlyTheWallLineWhenComparing() {
    Outcome a = Outcome.of(0, "IOPS 1\nwall 1.00 s\n", "", null);
    Outcome b = Outcome.of(0, "IOPS 1\nwall 2.00 s\n", "", null);
    Outcome c = Outcome.of(0, "IOPS 2\nwall 1.00 s\n", "", null);
    assertTrue(a.sameBytes(b));
    assertEquals("line 1: 'IOPS 1' vs 'IOPS 2'", a.firstDifference(c));
  }

  /** A run that t/io_uring itself would hang in is reported, not an invariant broken (issue 15). */
  @Test
  void shouldReportTIoUringsOwnHangWithIrqCompletions() {
    Case hang =
        new Case(
            List.of(
                new Opt("-d", "3"),
                new Opt("-s", "2"),
                new Opt("-p", "0"),
                new Opt(Case.RUNTIME, "10us")),
            List.of("/dev/nullb0"));
    Outcome o = new ThisBuild(List.of("--engine", "sequential")).run(hang.args());
    assertEquals(0, o.exit(), o.err());
    assertTrue(o.out().contains("submitter0  stopped: hangs in io_cqring_wait"), o.out());
    assertTrue(o.out().contains("books       balanced"), o.out());
    assertInstanceOf(Verdict.Ran.class, new Oracles().check(0, hang));
  }
}

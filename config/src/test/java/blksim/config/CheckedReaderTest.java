package blksim.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The one checked reader, one test per class of bad input that issue 9 found read wrongly: each
 * must be one line that names the key and what is accepted.
 */
class CheckedReaderTest {

  private static String refused(String... sets) {
    Scenario s = new Scenario();
    ConfigError e =
        assertThrows(
            ConfigError.class,
            () -> {
              for (String set : sets) {
                s.set(set);
              }
              s.settings();
            },
            String.join(" ", sets));
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    return e.getMessage();
  }

  @Test
  void wholeNumbersShouldBeWhole() {
    assertTrue(refused("io-uring.depth=16.9").contains("'16.9' is not a whole number"));
    assertTrue(refused("run.seed=1.5").contains("run.seed = '1.5' is not a whole number"));
    assertTrue(refused("cpu.submitter-cpus=[1.5]").contains("submitter-cpus[0] = '1.5'"));
    assertTrue(refused("null-blk.gb=true").contains("is not a number"));
    assertEquals(1000, new Scenario().set("io-uring.depth=1e3").settings().ioUring().depth());
  }

  @Test
  void numbersBeyondTheirTypeShouldBeRefusedNotClamped() {
    assertTrue(refused("run.seed=18446744073709551616").contains("out of range"));
    assertTrue(refused("io-uring.depth=4294967297").contains("accepted 1 to 32768"));
    assertTrue(refused("cpu.submitter-cpus=abc").contains("is not a list"));
  }

  @Test
  void numbersThatBecomePicosecondsShouldBeBounded() {
    String p = "profiles.begunkov-2021.";
    assertTrue(refused(p + "facts.clock-ghz=1e-300").contains("accepted 0.1 to 20 GHz"));
    assertTrue(refused(p + "scale=1e300").contains("accepted 0.001 to 100"));
    assertTrue(refused(p + "facts.syscall-ns=1e18").contains("accepted 0 to 1000000 ns"));
    assertTrue(refused(p + "steps.io_read=1e300").contains("steps.io_read = '1.0E300'"));
    assertTrue(refused("run.runtime=2h").contains("accepted 1ns to 1h"));
  }

  @Test
  void durationsShouldCarryAUnit() {
    String m = refused("run.runtime=10");
    assertTrue(m.contains("'10' has no unit"), m);
    assertEquals(10_000_000L, new Scenario().set("run.runtime=10ms").settings().run().runtimeNs());
    assertEquals(
        100_000_000L,
        new Scenario().set("run.status-interval=0").settings().run().statusIntervalNs(),
        "a bare 0 needs no unit: a tenth of the runtime");
  }

  @Test
  void statusIntervalsShouldNotOutnumberWhatARunCanHold() {
    String m = refused("run.status-interval=1ns");
    assertTrue(m.contains("accepted at most 100000, an interval of at least 10us"), m);
  }

  @Test
  void unknownKeysShouldBeRefusedEverywhere() {
    assertTrue(
        refused("profiles.begunkov-2021.facts.clock-gz=4").contains("did you mean clock-ghz"));
    assertTrue(refused("engine.dispatcher.bogus=1").contains("unknown key"));
    assertTrue(refused("akka.actor.provider=bogus.Provider").contains("is not read"));
  }

  @Test
  void theDispatcherShouldBeOneThatRuns() {
    assertTrue(refused("engine.dispatcher.type=Bogus").contains("accepted: Dispatcher"));
    assertTrue(refused("engine.dispatcher.executor=bogus").contains("thread-pool-executor"));
    assertTrue(
        refused("engine.dispatcher.thread-pool-executor.fixed-pool-size=0")
            .contains("accepted 1 to 64"));
  }

  @Test
  void oneSetShouldSetOneKey() {
    assertTrue(refused("io-uring.depth=1\nrun.seed=3").contains("one --set sets one key"));
  }

  @Test
  void inputNestedTooDeepShouldBeOneLine() {
    String deep = "[".repeat(3000) + "]".repeat(3000);
    String m = refused("run.seed=" + deep);
    assertTrue(m.contains("nested too deeply"), m);
    assertTrue(m.length() < 400, "the input is not echoed whole: " + m.length());
  }

  @Test
  void theDepthLimitShouldNotDependOnTheStack() {
    // blksim.run.seed is 3 levels: a list k deep puts its innermost at 2 + k
    String within = "[".repeat(Scenario.MAX_DEPTH - 2) + "]".repeat(Scenario.MAX_DEPTH - 2);
    assertTrue(refused("run.seed=" + within).contains("is not a number"));
    String beyond = "[".repeat(Scenario.MAX_DEPTH - 1) + "]".repeat(Scenario.MAX_DEPTH - 1);
    assertTrue(refused("run.seed=" + beyond).contains("nested too deeply"));
    String dotted = "x" + ".x".repeat(Scenario.MAX_DEPTH);
    assertTrue(refused(dotted + "=1").contains("nested too deeply"));
  }

  @Test
  void echoedValuesShouldBeEscaped() {
    String m = refused("engine.kind=\"a\\u001b[31mb\\nc\"");
    assertTrue(m.contains("'a\\u001b[31mb\\nc'"), m);
    assertEquals("'x\\ty\\u0000'", OneLine.quoted("x\ty\u0000"));
    assertEquals("\\u202e", OneLine.of("\u202e"));
    assertEquals("é😀", OneLine.of("é😀"));
  }

  @Test
  void interferenceShouldSwitchOffAsAWholeAndBoundItsSpread() {
    InterferenceSettings off =
        new Scenario().set("interference.enabled=false").settings().interference();
    assertFalse(off.tick() || off.variation() || off.anyRandom(), off.toString());
    InterferenceSettings on = new Scenario().settings().interference();
    assertTrue(on.tick() && on.variation(), on.toString());
    assertFalse(
        new Scenario().set("interference.variation.cv=0").settings().interference().variation());
    assertTrue(refused("interference.variation.cv=2.5").contains("accepted 0 to 2"));
    assertTrue(refused("interference.variation.cv=-0.1").contains("interference.variation.cv"));
    assertTrue(refused("interference.vmstat.interval=5").contains("has no unit"));
    assertTrue(refused("interference.vmstat.interval=2h").contains("accepted 1us to 1h"));
  }
}

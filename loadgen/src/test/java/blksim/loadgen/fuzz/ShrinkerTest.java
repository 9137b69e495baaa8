package blksim.loadgen.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.loadgen.fuzz.Case.Opt;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShrinkerTest {
  private static final Case BIG =
      new Case(
          List.of(
              new Opt("--cpus", "12"),
              new Opt("-n", "5"),
              new Opt("-d", "96"),
              new Opt("-s", "33"),
              new Opt("--patch", "bdev-inode-inline,bio-init-compound"),
              new Opt("nb:hw_queue_depth", "3"),
              new Opt("nb:irqmode", "2"),
              new Opt(Case.RUNTIME, "400us")),
          List.of("/dev/nullb2", "/dev/nullb1"));

  @Test
  void shouldShrinkToTheOptionsThatMatterAtTheirSmallestFailingValues() {
    // A stand-in bug: it shows whenever the depth is 8 or more and bio-init-compound is on.
    Shrinker s =
        new Shrinker(
            c ->
                c.get("-d") != null
                    && Long.parseLong(c.get("-d")) >= 8
                    && c.get("--patch") != null
                    && c.get("--patch").contains("bio-init-compound"),
            500);
    Case small = s.shrink(BIG);
    assertEquals(
        "blksim io_uring -d8 --patch bio-init-compound --set run.runtime=10us /dev/nullb0",
        small.commandLine());
    assertTrue(s.runs() < 500, "it ended on its own: " + s.runs());
  }

  @Test
  void shouldKeepPinnedOptionsAndStopAtItsBudget() {
    Case pinned = BIG.pin("set:books.break", "leak-bio");
    Shrinker s = new Shrinker(c -> true, 1000);
    Case small = s.shrink(pinned);
    assertEquals(
        "blksim io_uring --set run.runtime=10us --set books.break=leak-bio /dev/nullb0",
        small.commandLine());
    Shrinker limited = new Shrinker(c -> true, 3);
    limited.shrink(pinned);
    assertEquals(3, limited.runs());
  }

  @Test
  void shouldOfferSmallerValuesOfEachKind() {
    assertEquals(List.of("0", "1", "48", "72", "84", "95"), Shrinker.smaller("96"));
    assertEquals(List.of("10us", "200us"), Shrinker.smaller("400us"));
    assertEquals(List.of("b,c", "a,c", "a,b"), Shrinker.smaller("a,b,c"));
    assertEquals(List.of(), Shrinker.smaller("0"));
    assertEquals(List.of(), Shrinker.smaller("zen2-3970x"));
  }

  @Test
  void shouldQuoteWhatAShellWouldSplit() {
    Case c =
        new Case(
            List.of(new Opt("nb:poll_queues", "2"), new Opt("nb:irqmode", "2")),
            List.of("/dev/nullb0"));
    assertEquals(
        "blksim io_uring --null-blk 'poll_queues=2 irqmode=2' /dev/nullb0", c.commandLine());
    assertEquals(
        List.of("io_uring", "--null-blk", "poll_queues=2 irqmode=2", "/dev/nullb0"), c.args());
  }

  @Test
  void shouldReadBackWhatItQuotesEvenWithAQuoteInside() {
    Case c =
        new Case(
            List.of(new Opt("set:run.status-interval", "it's 1 ms"), new Opt(Case.RUNTIME, "10us")),
            List.of("/dev/nullb0"));
    assertEquals(
        "blksim io_uring --set 'run.status-interval=it'\\''s 1 ms' --set run.runtime=10us /dev/nullb0",
        c.commandLine());
    assertEquals(c.args(), CaseLine.parse(c.commandLine()).args());
    assertEquals(List.of("a b", "c\"d", "e"), CaseLine.words("\"a b\" 'c\"d' \\e"));
  }
}

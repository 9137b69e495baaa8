package blksim.devices.drivers.null_blk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import blksim.config.FaultAttr;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;

/** lib/fault-inject.c's should_fail, as null_blk calls it (size 1). */
class FaultInjectionTest {
  private static FaultInjection of(String attr) {
    return new FaultInjection(
        FaultAttr.parse("requeue", attr),
        cpu -> RandomGeneratorFactory.of("L64X128MixRandom").create(cpu),
        1);
  }

  private static String run(FaultInjection f, int calls) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < calls; i++) {
      b.append(f.shouldFail(0) ? 'F' : '.');
    }
    return b.toString();
  }

  @Test
  void spaceShouldLetThroughOneCallFewerThanItSays() {
    // space > size: space=3 lets 2 calls of size 1 through, as the kernel counts.
    assertEquals("..FF", run(of("1,100,3,2"), 4));
  }

  @Test
  void intervalShouldFailEveryNthCallAndTimesShouldStopIt() {
    assertEquals("..F..F....", run(of("3,100,0,2"), 10));
    FaultInjection twice = of("1,100,0,2");
    assertEquals("FF..", run(twice, 4));
    assertEquals(2, twice.failures());
  }

  @Test
  void noProbabilityOrNoTimesShouldNeverFail() {
    assertEquals("....", run(of("1,0,0,-1"), 4));
    assertEquals("....", run(of("1,100,0,0"), 4));
    assertEquals("....", run(FaultInjection.none(), 4));
  }
}

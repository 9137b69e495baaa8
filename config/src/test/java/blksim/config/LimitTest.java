package blksim.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The list of what is not modelled yet: stable ids, one line each, listed by area. */
class LimitTest {

  @Test
  void everyIdIsUniqueAndKebabCase() {
    Set<String> ids = new HashSet<>();
    for (Limit l : Limit.values()) {
      assertTrue(ids.add(l.id()), "two limits named " + l.id());
      assertTrue(l.id().matches("[a-z0-9]+(-[a-z0-9.]+)*"), l.id());
    }
  }

  @Test
  void everyDescriptionIsOneSentenceOnOneLine() {
    for (Limit l : Limit.values()) {
      String d = l.description();
      assertFalse(d.isBlank(), l.id());
      assertFalse(d.contains("\n"), l.id());
      assertEquals(d.strip(), d, l.id());
      assertTrue(d.endsWith("."), l.id() + ": " + d);
    }
  }

  /** The listing goes area by area in declaration order, so each area's limits are together. */
  @Test
  void everyAreaHasItsLimitsTogether() {
    Set<Limit.Area> done = EnumSet.noneOf(Limit.Area.class);
    Limit.Area current = null;
    for (Limit l : Limit.values()) {
      if (l.area() != current) {
        assertTrue(done.add(l.area()), l.id() + " is apart from the rest of " + l.area());
        current = l.area();
      }
    }
    assertEquals(EnumSet.allOf(Limit.Area.class), done, "an area with no limit");
  }

  @Test
  void refuseIfKeepsTheCheckSLine() {
    assertDoesNotThrow(() -> Limit.PASSTHROUGH.refuseIf(false, "-u1: NVMe passthrough"));
    ConfigError e =
        assertThrows(
            ConfigError.class, () -> Limit.PASSTHROUGH.refuseIf(true, "-u1: NVMe passthrough"));
    assertEquals("-u1: NVMe passthrough is not modelled yet", e.getMessage());
    assertEquals("as composed", Limit.DM_ON_DM.refusal("as composed").getMessage());
  }
}

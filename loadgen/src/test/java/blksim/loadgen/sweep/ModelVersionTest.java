package blksim.loadgen.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.Scenario;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ModelVersionTest {
  private static SortedMap<String, byte[]> build(byte nullBlkByte, byte cliByte) {
    SortedMap<String, byte[]> m = new TreeMap<>();
    m.put("blksim/devices/drivers/null_blk/NullBlk.class", new byte[] {1, 2, nullBlkByte});
    m.put("blksim/queues/block/bio/Bio.class", new byte[] {4, 5});
    m.put("blksim/loadgen/cli/Cli.class", new byte[] {cliByte});
    m.put("blksim/report/report.html", new byte[] {7});
    return m;
  }

  @Test
  void aChangeToTheModelChangesTheVersionAndToTheCommandLineDoesNot() {
    String v = ModelVersion.of(build((byte) 3, (byte) 9));
    assertEquals(v, ModelVersion.of(build((byte) 3, (byte) 9)));
    assertNotEquals(v, ModelVersion.of(build((byte) 4, (byte) 9)), "a byte of null_blk's class");
    assertEquals(v, ModelVersion.of(build((byte) 3, (byte) 8)), "the command line is not model");
    SortedMap<String, byte[]> more = build((byte) 3, (byte) 9);
    more.put("blksim/queues/block/blk_mq_tag/Tags.class", new byte[0]);
    assertNotEquals(v, ModelVersion.of(more), "a class added");
  }

  @Test
  void thisBuildHasAVersionOfItsModelClasses() {
    SortedMap<String, byte[]> seen = ModelVersion.entries(ModelVersion.class.getClassLoader());
    assertTrue(
        seen.containsKey("blksim/devices/drivers/null_blk/NullBlk.class"),
        seen.keySet().toString());
    assertTrue(seen.keySet().stream().anyMatch(k -> k.startsWith("blksim/actors/")));
    assertTrue(seen.keySet().stream().noneMatch(k -> k.startsWith("blksim/loadgen/cli/")));
    assertTrue(ModelVersion.current().matches("[0-9a-f]{64}"));
    assertEquals(ModelVersion.current(), ModelVersion.of(seen));
  }

  @Test
  void aPointsKeyIsItsConfigurationAndTheModel() {
    PointKey a = PointKey.of(new Scenario().settings().engine().akkaConfig());
    PointKey again = PointKey.of(new Scenario().settings().engine().akkaConfig());
    assertEquals(a, again);
    PointKey cost =
        PointKey.of(
            new Scenario()
                .set("profiles.begunkov-2021.facts.l2-load-cycles = 15")
                .settings()
                .engine()
                .akkaConfig());
    assertNotEquals(a.hex(), cost.hex(), "a cost of the profile");
    PointKey depth =
        PointKey.of(new Scenario().set("io-uring.depth = 8").settings().engine().akkaConfig());
    assertNotEquals(a.hex(), depth.hex());
    assertNotEquals(a.hex(), PointKey.of(a.config(), "another model").hex());
    assertEquals(PointKey.DIGITS, a.hex().length());
  }
}

package blksim.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioTest {

  @Test
  void defaultsShouldBeTIoUringsAndTheKernels() {
    BlksimSettings s = BlksimSettings.defaults();
    IoUringSettings u = s.ioUring();
    assertEquals(128, u.depth());
    assertEquals(32, u.batchSubmit());
    assertEquals(32, u.batchComplete());
    assertEquals(4096, u.blockSize());
    assertTrue(
        u.polled() && u.fixedBuffers() && u.registerFiles() && u.oDirect() && u.registerRing());
    assertEquals(1, u.threads());
    assertEquals(1_000_000_000L, s.run().runtimeNs());
    assertEquals(100_000_000L, s.run().statusIntervalNs(), "a tenth of the runtime");
    assertEquals(512, s.bioset().allocCacheMax());
    assertEquals(64, s.bioset().allocCacheSlack());
    assertEquals("begunkov-2021", s.profile().name());
    assertEquals(EngineSettings.Kind.AKKA, s.engine().kind());
  }

  @Test
  void laterLayersShouldOverrideEarlierOnes(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("s.conf");
    Files.writeString(
        file,
        "blksim.io-uring { depth = 16, block-size = 512 }\nblksim.null-blk.hw-queue-depth = 32\n");
    BlksimSettings s =
        new Scenario()
            .file(file)
            .nullBlk("hw_queue_depth=48 poll-queues=2")
            .set("io-uring.depth=8")
            .settings();
    assertEquals(8, s.ioUring().depth());
    assertEquals(512, s.ioUring().blockSize());
    assertEquals(48, s.nullBlk().hwQueueDepth());
    assertEquals(2, s.nullBlk().pollQueues());
  }

  @Test
  void batchesShouldBeClampedAsTIoUringDoes() {
    BlksimSettings s =
        new Scenario()
            .values(
                Map.of(
                    "blksim.io-uring.depth",
                    16,
                    "blksim.io-uring.batch-submit",
                    0,
                    "blksim.io-uring.batch-complete",
                    64),
                "test")
            .settings();
    assertEquals(1, s.ioUring().batchSubmit(), "-s 0 means 1");
    assertEquals(16, s.ioUring().batchComplete(), "clamped to the depth");
    assertEquals(16, s.ioUring().sqRingEntries());
    assertEquals(32, new Scenario().set("io-uring.depth=17").settings().ioUring().sqRingEntries());
  }

  @Test
  void unknownKeyShouldBeNamedWithTheNearestKnownOne() {
    ConfigError e =
        assertThrows(
            ConfigError.class, () -> new Scenario().set("blksim.null-blk.hw-queue-dept=64"));
    assertTrue(
        e.getMessage().contains("unknown key blksim.null-blk.hw-queue-dept"), e.getMessage());
    assertTrue(
        e.getMessage().contains("did you mean blksim.null-blk.hw-queue-depth?"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"));
  }

  @Test
  void unknownKeyInAFileShouldNameTheFileAndLine(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("bad.conf");
    Files.writeString(file, "blksim {\n  io-uring {\n    dept = 4\n  }\n}\n");
    ConfigError e = assertThrows(ConfigError.class, () -> new Scenario().file(file));
    assertTrue(e.getMessage().contains("bad.conf: 3"), e.getMessage());
    assertTrue(e.getMessage().contains("blksim.io-uring.dept"), e.getMessage());
  }

  @Test
  void wrongTypesAndRangesShouldBeOneLine() {
    ConfigError type =
        assertThrows(ConfigError.class, () -> new Scenario().set("io-uring.depth=lots").settings());
    assertTrue(type.getMessage().contains("blksim.io-uring.depth"), type.getMessage());
    ConfigError range =
        assertThrows(ConfigError.class, () -> new Scenario().set("io-uring.depth=0").settings());
    assertTrue(range.getMessage().contains("accepted 1 to 32768"), range.getMessage());
    ConfigError kind =
        assertThrows(ConfigError.class, () -> new Scenario().set("engine.kind=threads").settings());
    assertTrue(kind.getMessage().contains("akka, sequential"), kind.getMessage());
    assertThrows(ConfigError.class, () -> new Scenario().set("no-equals-sign"));
    assertThrows(ConfigError.class, () -> new Scenario().set("run.runtime={").settings());
  }

  @Test
  void missingFileShouldBeNamed() {
    ConfigError e =
        assertThrows(ConfigError.class, () -> new Scenario().file(Path.of("missing.conf")));
    assertEquals("missing.conf: no such scenario file", e.getMessage());
  }

  @Test
  void profilesShouldPriceEveryStepAndOnlyKnownSteps() {
    CostProfile p = BlksimSettings.defaults().profile();
    assertEquals(10_000, p.ps("bio_alloc_kiocb"), "10 ns");
    assertEquals(15_600, p.ps("bio_alloc_bioset"), "decimals kept in picoseconds");
    ConfigError missing =
        assertThrows(
            ConfigError.class,
            () -> new Scenario().hocon("blksim.profiles.mine { other = 1 }", "test").settings());
    assertTrue(missing.getMessage().contains("has no entry"), missing.getMessage());
    ConfigError unknown =
        assertThrows(
            ConfigError.class,
            () -> new Scenario().set("profiles.begunkov-2021.frobnicate=1").settings());
    assertTrue(unknown.getMessage().contains("not a step"), unknown.getMessage());
    ConfigError negative =
        assertThrows(
            ConfigError.class,
            () -> new Scenario().set("profiles.begunkov-2021.other=-1").settings());
    assertTrue(negative.getMessage().contains(">= 0"), negative.getMessage());
    ConfigError none =
        assertThrows(ConfigError.class, () -> new Scenario().set("cpu.profile=zen9").settings());
    assertTrue(none.getMessage().contains("known begunkov-2021"), none.getMessage());
  }
}

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
  void aDirectoryOrADeviceShouldBeNamedForWhatItIs(@org.junit.jupiter.api.io.TempDir Path dir) {
    ConfigError d = assertThrows(ConfigError.class, () -> new Scenario().file(dir));
    assertEquals(dir + ": a directory, not a scenario file", d.getMessage());
    ConfigError n =
        assertThrows(ConfigError.class, () -> new Scenario().file(Path.of("/dev/null")));
    assertTrue(n.getMessage().startsWith("/dev/null: not a regular file"), n.getMessage());
    ConfigError p = assertThrows(ConfigError.class, () -> new Scenario().patchFile(dir));
    assertEquals(dir + ": a directory, not a patch file", p.getMessage());
  }

  @Test
  void theDefaultProfileShouldBeTheReferenceBoxWithItsSetup() {
    BlksimSettings s = BlksimSettings.defaults();
    CpuProfile p = s.profile();
    assertEquals("begunkov-2021", p.name());
    assertEquals(1.0, p.scale());
    assertEquals(5.0, p.scaledNs("bio_alloc_kiocb"));
    assertEquals(1.25, p.scaledNs("blkdev_read_iter"), "decimals are kept");
    assertEquals(4.0, p.facts().clockGhz());
    assertEquals(3.5, p.facts().ns(p.facts().l2LoadCycles()), "14 cycles at 4 GHz");
    assertFalse(s.kernel().iostats(), "the profile's box ran with iostats off");
    assertTrue(
        new Scenario().set("queue.iostats=true").settings().kernel().iostats(),
        "the user's setting wins");
  }

  @Test
  void theMachineShouldBeFittedToTheThreadsUnlessGiven() {
    assertEquals(2, cpus(), "-n1: the thread and its io-wq worker");
    assertEquals(8, cpus("io-uring.threads=4"), "four threads, four workers");
    assertEquals(8, cpus("io-uring.threads=2", "cpu.submitter-cpus=[3, 5]"), "CPUs 0-5, two more");
    assertEquals(2, cpus("io-uring.threads=1", "cpu.submitter-cpus=[0, 7]"), "thread 0 on CPU 0");
    assertEquals(
        3,
        cpus("dm.tables=[\"0 1024 linear /dev/nullb0 0\"]", "dm.suspend=[\"dm-0 at 1ms for 1ms\"]"),
        "and dmsetup's");
    assertEquals(1, cpus("io-uring.threads=4", "cpu.count=1"), "a count given is kept");
    ConfigError e =
        assertThrows(
            ConfigError.class, () -> cpus("cpu.count=2", "cpu.submitter-cpus=[2]"), "as before");
    assertTrue(e.getMessage().contains("accepted 0 to 1"), e.getMessage());
  }

  private static int cpus(String... settings) {
    Scenario s = new Scenario();
    for (String kv : settings) {
      s.set(kv);
    }
    return s.settings().cpu().count();
  }

  @Test
  void aSysfsFlagShouldTakeTheNumberTheKernelTakes() {
    assertTrue(new Scenario().set("queue.iostats=1").settings().kernel().iostats(), "echo 1");
    assertFalse(new Scenario().set("queue.iostats=0").settings().kernel().iostats(), "echo 0");
    assertTrue(new Scenario().set("null-blk.no-sched=1").settings().nullBlk().noSched());
    ConfigError e =
        assertThrows(
            ConfigError.class, () -> new Scenario().set("queue.iostats=2").settings().kernel());
    assertTrue(e.getMessage().contains("true, false, 0 or 1"), e.getMessage());
  }

  @Test
  void aProfileShouldExtendAnotherAndOverrideItsKeys() {
    BlksimSettings s =
        new Scenario()
            .hocon(
                "blksim.profiles.mine { extends = begunkov-2021, scale = 2.0, facts.clock-ghz = 3.0,"
                    + " steps.io_read = 30 }\nblksim.cpu.profile = mine",
                "test")
            .settings();
    CpuProfile p = s.profile();
    assertEquals(10.0, p.scaledNs("bio_alloc_kiocb"), "inherited step, scaled");
    assertEquals(60.0, p.scaledNs("io_read"), "overridden step, scaled");
    assertEquals(3.0, p.facts().clockGhz());
    assertEquals(14.0, p.facts().l2LoadCycles(), "inherited fact");
    assertFalse(s.kernel().iostats(), "inherited setup");
  }

  @Test
  void badProfilesShouldBeNamed() {
    String[][] cases = {
      {"blksim.profiles.a { extends = b }\nblksim.profiles.b { extends = a }", "extends itself"},
      {"blksim.profiles.x { extends = nowhere }", "nowhere is not a profile"},
      {
        "blksim.profiles.mine { scale = 1, facts = ${blksim.profiles.begunkov-2021.facts}, steps { io_read = 1 } }",
        "has no entry"
      },
      {"blksim.profiles.begunkov-2021.steps.frobnicate = 1", "not a step"},
      {"blksim.profiles.begunkov-2021.colour = blue", "not a profile key"},
      {"blksim.profiles.begunkov-2021.steps.io_read = -1", "steps.io_read = '-1' is out of range"},
      {"blksim.profiles.begunkov-2021.scale = 0", "accepted 0.001 to 100"},
      {"blksim.cpu.profile = zen9", "known begunkov-2021"},
      {
        "blksim.profiles.begunkov-2021.setup.queue.iostat = true", "unknown key blksim.queue.iostat"
      },
    };
    for (String[] c : cases) {
      ConfigError e =
          assertThrows(
              ConfigError.class, () -> new Scenario().hocon(c[0], "test").settings(), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
    }
  }

  @Test
  void patchesShouldComeFromThePresetAndTheList() {
    KernelSettings none = BlksimSettings.defaults().kernel();
    assertTrue(none.patches().isEmpty());
    KernelSettings k516 = new Scenario().set("kernel.preset=5.16").settings().kernel();
    assertEquals(
        java.util.Set.of(
            Patch.BDEV_CACHE_IN_FILE,
            Patch.END_REQUEST_FAST_PATH,
            Patch.PLUG_BATCH_ALLOC,
            Patch.RSRC_REF_CACHE,
            Patch.RSRC_NODE_CTX,
            Patch.DRIVER_TAG_INLINE,
            Patch.BIO_TRACKED_RQ_QOS,
            Patch.BIO_IOV_BVEC_SET,
            Patch.BIO_ADVANCE_SKIP,
            Patch.UPDATE_REQUEST_IN_BLK_MQ,
            Patch.STATUS_ERRNO_SKIP,
            Patch.RQF_ELV,
            Patch.RQ_CTX_INIT_NO_ELV,
            Patch.REMOVE_CTX_COUNTERS,
            Patch.REMOVE_HCTX_COUNTERS,
            Patch.QUEUE_ENTER_RCU_ONCE,
            Patch.BDEV_CACHED_QUEUE,
            Patch.BLKDEV_DIO_FLAGS,
            Patch.RQ_LAYOUT),
        k516.patches());
    KernelSettings more =
        new Scenario()
            .set("kernel.preset=5.16")
            .addPatches(java.util.List.of("bio-init-compound", "no-plug-batch-alloc"))
            .settings()
            .kernel();
    assertEquals(k516.patches().size(), more.patches().size());
    assertTrue(more.has(Patch.BIO_INIT_COMPOUND) && !more.has(Patch.PLUG_BATCH_ALLOC));
    KernelSettings k517 = new Scenario().set("kernel.preset=5.17").settings().kernel();
    assertTrue(k517.has(Patch.NULL_POLL_BATCH) && !k516.has(Patch.NULL_POLL_BATCH));
    assertTrue(!k517.dmPoll() && !k517.registerRingFds());
    ConfigError badNo =
        assertThrows(
            ConfigError.class, () -> new Scenario().addPatches(java.util.List.of("no-speedup")));
    assertTrue(badNo.getMessage().contains("unknown patch speedup"), badNo.getMessage());
    ConfigError bad =
        assertThrows(
            ConfigError.class, () -> new Scenario().addPatches(java.util.List.of("speedup")));
    assertTrue(bad.getMessage().contains("accepted bdev-cache-in-file"), bad.getMessage());
    ConfigError preset =
        assertThrows(ConfigError.class, () -> new Scenario().set("kernel.preset=4.19").settings());
    assertTrue(
        preset.getMessage().contains("accepted 5.15, 5.16, 5.17, 5.18, 5.19, 6.1"),
        preset.getMessage());
  }
}

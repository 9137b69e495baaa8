package blksim.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Patches described as data: how they are read, turned on, and refused. */
class PatchDataTest {
  private static final String MINE =
      "patches.mine {\n"
          + "  description = \"cache the request_queue pointer in the bdev\"\n"
          + "  source = \"lore <id>\"\n"
          + "  changes {\n"
          + "    submit_bio_noacct { l1-loads = -2 }\n"
          + "    blkdev_iopoll { l2-loads = -1, calls = -1 }\n"
          + "  }\n"
          + "  adds {\n"
          + "    __audit_uring_entry { called-from = io_issue_sqe, per-call = 2, calls = 1,"
          + " l1-loads = 3, atomics = 1 }\n"
          + "  }\n"
          + "  with { bdev-cache-in-file { blkdev_read_iter { stores = 1.5 } } }\n"
          + "}\n";

  private static Path file(Path dir, String text) throws IOException {
    Path f = dir.resolve("p.conf");
    Files.writeString(f, text);
    return f;
  }

  @Test
  void aPatchFileShouldDefineAPatchThatPatchTurnsOn(@TempDir Path dir) throws IOException {
    KernelSettings k =
        new Scenario()
            .patchFile(file(dir, MINE))
            .addPatches(List.of("mine", "bdev-cache-in-file"))
            .settings()
            .kernel();
    assertEquals(List.of("bdev-cache-in-file", "mine"), k.names());
    assertEquals(2, k.priced().size(), "the built-in priced by data, then the user's");
    PatchData mine = k.priced().get(1);
    assertEquals("mine", mine.name());
    assertEquals("lore <id>", mine.source());
    assertEquals(-2.0, mine.changes().get("submit_bio_noacct").count(WorkUnit.L1_LOADS));
    assertEquals(-1.0, mine.changes().get("blkdev_iopoll").count(WorkUnit.CALLS));
    PatchData.Added a = mine.adds().get("__audit_uring_entry");
    assertEquals("io_issue_sqe", a.calledFrom());
    assertEquals(2, a.perCall());
    assertEquals(3.0, a.work().count(WorkUnit.L1_LOADS));
    assertEquals(
        1.5, mine.with().get("bdev-cache-in-file").get("blkdev_read_iter").count(WorkUnit.STORES));
    assertTrue(k.library().containsKey("bio-init-compound"), "every patch of the library is read");
  }

  @Test
  void aPatchInAScenarioFileShouldWorkAsInAPatchFile(@TempDir Path dir) throws IOException {
    KernelSettings k =
        new Scenario()
            .file(file(dir, "blksim." + MINE + "blksim.kernel.patches = [mine]\n"))
            .settings()
            .kernel();
    assertEquals(List.of("mine"), k.names());
    assertTrue(k.patches().isEmpty(), "no built-in patch is on");
  }

  @Test
  void everyBuiltInPricedByDataShouldHaveItsDataAndNoCodeToggleAny() {
    var reference = ConfigFactory.defaultReference();
    for (Patch p : Patch.values()) {
      assertEquals(
          p.pricedByData(),
          reference.hasPath(PatchData.path(p.key())),
          p.key() + ": priced by data exactly when reference.conf describes it");
    }
    KernelSettings all = new KernelSettings("", java.util.EnumSet.allOf(Patch.class), false);
    assertEquals(
        java.util.Arrays.stream(Patch.values()).filter(Patch::pricedByData).count(),
        all.priced().size());
  }

  @Test
  void badPatchesShouldBeRefusedInOneLineNamingWhatIsAccepted(@TempDir Path dir)
      throws IOException {
    String[][] cases = {
      {
        "patches.x { changes { f { l1-load = 1 } } }",
        "l1-load is not a unit of work (did you mean l1-loads?)"
      },
      {"patches.x { changes { f { l1-loads = abc } } }", "l1-loads"},
      {"patches.x { changes { f { l1-loads = 1e9 } } }", "out of range"},
      {"patches.x { changes { f { l1-loads = 0 } } }", "changes no work"},
      {"patches.x { changes { f = 3 } }", "is not an object"},
      {
        "patches.x { change { f { calls = 1 } } }",
        "change is not a patch key: accepted adds, changes"
      },
      {"patches.x { description = \"nothing\" }", "changes nothing"},
      {"patches.x { adds { g { calls = 1 } } }", "has no called-from"},
      {"patches.x { adds { g { called-from = f, per-call = 0, calls = 1 } } }", "per-call"},
      {"patches.x { adds { g { called-from = f, per-call = 1.5, calls = 1 } } }", "per-call"},
      {
        "patches.x { with { nope { f { calls = 1 } } }, changes { f { calls = 1 } } }",
        "unknown patch nope"
      },
      {"patches.plug-batch-alloc { changes { f { calls = 1 } } }", "the model's code prices"},
      {"patches = 3", "patches is not an object"},
      {"blksim.run.runtime = 1s", "holds patches.NAME { ... } only"},
      {"# nothing", "no patches in it"},
    };
    for (String[] c : cases) {
      Path f = file(dir, c[0]);
      ConfigError e =
          assertThrows(
              ConfigError.class,
              () ->
                  new Scenario()
                      .patchFile(f)
                      .addPatches(c[0].contains("patches.x") ? List.of("x") : List.of())
                      .settings(),
              c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
      assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }
    ConfigError unknown =
        assertThrows(ConfigError.class, () -> new Scenario().addPatches(List.of("mine2")));
    assertTrue(unknown.getMessage().contains("unknown patch mine2"), unknown.getMessage());
    ConfigError missing =
        assertThrows(ConfigError.class, () -> new Scenario().patchFile(dir.resolve("none.conf")));
    assertTrue(missing.getMessage().contains("no such patch file"), missing.getMessage());
  }
}

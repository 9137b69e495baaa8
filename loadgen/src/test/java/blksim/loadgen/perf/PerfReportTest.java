package blksim.loadgen.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.config.ConfigError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The parser and the alias table on the verbatim profiles of docs/costs.md section 2. */
class PerfReportTest {
  static List<String> resource(String name) throws IOException {
    try (InputStream in = PerfReportTest.class.getResourceAsStream("/perf/" + name)) {
      return List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1));
    }
  }

  static PerfReport report(String name) throws IOException {
    return PerfReport.parse(resource(name), name, null);
  }

  /** Share per step, percent. */
  static Map<String, Double> byStep(PerfReport r) {
    Map<String, Double> m = new TreeMap<>();
    for (PerfEntry e : r.entries()) {
      SymbolMap.place(e).steps().forEach((s, part) -> m.merge(s, e.selfPct() * part, Double::sum));
    }
    return m;
  }

  @Test
  void slabProfileSumsIntoItsThreeSteps() throws IOException {
    Map<String, Double> m = byStep(report("2.1-bio-alloc.txt"));
    // __slab_free 2.82 + kmem_cache_free 1.73 + mempool_free_slab 0.36 + mempool_free 0.27
    assertEquals(5.18, m.get("bio_free"), 1e-9);
    assertEquals(2.71, m.get("bio_alloc_bioset"), 1e-9);
    assertEquals(2.03, m.get("kmem_cache_alloc"), 1e-9);
    assertEquals(3, m.size(), m.toString());
  }

  @Test
  void unmappedSymbolsAreListedInUnattributed() throws IOException {
    PerfReport r = report("2.5-plug-merge.txt");
    assertEquals(5, r.entries().size(), "the column header is not a sample");
    List<String> unmapped = new ArrayList<>();
    for (PerfEntry e : r.entries()) {
      if (SymbolMap.place(e).kind() == SymbolMap.Kind.UNMAPPED) {
        unmapped.add(e.symbol());
      }
    }
    assertEquals(List.of("blk_attempt_plug_merge", "nvme_queue_rq"), unmapped);
    assertEquals(20.89 + 3.67, byStep(r).get(SymbolMap.UNATTRIBUTED), 1e-9);
    assertEquals(4.78, byStep(r).get("__blkdev_direct_IO"), 1e-9, "blkdev_direct_IO's alias");
  }

  @Test
  void userSpaceIsApartFromTheKernel() throws IOException {
    PerfReport r = report("2.6-13m.txt");
    PerfEntry sub =
        r.entries().stream().filter(e -> e.symbol().equals("submitter_uring_fn")).findFirst().get();
    assertTrue(sub.user());
    assertEquals("io_uring", sub.dso());
    assertEquals(SymbolMap.Kind.TIO_URING, SymbolMap.place(sub).kind());
    Map<String, Double> m = byStep(r);
    assertEquals(2.62, m.get("prep_more_ios_uring"), 1e-9);
    assertEquals(2.62, m.get("reap_events_uring"), 1e-9);
    // row 4's three entries, gcc's .part.0 copies under their names
    assertEquals(4.67 + 3.02 + 2.60, m.get("io_read"), 1e-9);
    assertEquals(5.46, m.get("__blkdev_direct_IO"), 1e-9);
    assertEquals(2.59, m.get("submit_bio_noacct"), 1e-9);
    assertTrue(r.entries().stream().filter(e -> !e.user()).noneMatch(PerfEntry::user));
  }

  @Test
  void theChildrenColumnIsSkippedForSelf() throws IOException {
    PerfReport r = report("2.7-whole-series.txt");
    assertTrue(r.children());
    assertEquals(2.82, r.entries().get(0).childrenPct(), 1e-9);
    assertEquals(2.50, r.entries().get(1).selfPct(), 1e-9);
    assertEquals(2.51, r.entries().get(1).childrenPct(), 1e-9);
  }

  @Test
  void childrenSummingPast100IsNoErrorButSelfIs() {
    List<String> lines =
        List.of(
            "# Children      Self  Command   Shared Object      Symbol",
            "+   90.00%     1.00%  io_uring  [kernel.vmlinux]  [k] entry_SYSCALL_64",
            "+   80.00%     2.00%  io_uring  [kernel.vmlinux]  [k] __x64_sys_io_uring_enter",
            "+   70.00%     3.00%  io_uring  [kernel.vmlinux]  [k] io_submit_sqes");
    PerfReport r = PerfReport.parse(lines, "t", null);
    assertEquals(6.0, r.entries().stream().mapToDouble(PerfEntry::selfPct).sum(), 1e-9);
    ConfigError e =
        assertThrows(
            ConfigError.class,
            () ->
                PerfReport.parse(
                    List.of(
                        "  60.00%  io_uring  [kernel.vmlinux]  [k] a",
                        "  50.00%  io_uring  [kernel.vmlinux]  [k] b"),
                    "t",
                    null));
    assertTrue(
        e.getMessage().contains("110.00%, more than 100% with no Children column"), e.getMessage());
  }

  @Test
  void wrappedLinesAreJoinedAndCallchainsSkipped() throws IOException {
    List<String> wrapped = new ArrayList<>();
    for (String l : resource("2.6-13m.txt")) {
      int k = l.indexOf("[k]");
      if (l.contains("io_submit_sqes")) {
        // a mail client broke it after the shared object
        wrapped.add("> " + l.substring(0, k).stripTrailing());
        wrapped.add("> " + l.substring(k));
        wrapped.add(">             |");
        wrapped.add(">             ---io_submit_sqes");
        wrapped.add(">                |--50.00%--io_issue_sqe");
      } else if (l.contains("nvme_poll")) {
        // and this one after the marker
        wrapped.add(l.substring(0, k + 3));
        wrapped.add("    " + l.substring(k + 3).strip());
      } else {
        wrapped.add(l);
      }
    }
    PerfReport plain = report("2.6-13m.txt");
    PerfReport r = PerfReport.parse(wrapped, "wrapped", null);
    assertEquals(2, r.joined());
    assertEquals(plain.entries(), r.entries());
  }

  @Test
  void sectionsReadOneRunOfAPaste() throws IOException {
    PerfReport before = report("2.7-rcu.txt");
    assertEquals(List.of("Before", "After"), before.sections());
    assertEquals(
        3.20 + 3.05, before.entries().stream().mapToDouble(PerfEntry::selfPct).sum(), 1e-9);
    PerfReport after = PerfReport.parse(resource("2.7-rcu.txt"), "rcu", "after");
    assertEquals(2.52 + 2.28, after.entries().stream().mapToDouble(PerfEntry::selfPct).sum(), 1e-9);
    assertThrows(
        ConfigError.class, () -> PerfReport.parse(resource("2.7-rcu.txt"), "rcu", "during"));
  }

  @Test
  void factsPricedSymbolsAreNoStep() throws IOException {
    for (PerfEntry e : report("2.8-timekeeping.txt").entries()) {
      SymbolMap.Place p = SymbolMap.place(e);
      assertEquals(SymbolMap.Kind.FACTS, p.kind(), e.symbol());
      assertEquals("ktime-get-ns", p.fact());
    }
  }

  @Test
  void everyAliasNamesAStepOfTheReferenceProfile() {
    List<String> known =
        blksim.config.CpuProfile.knownSteps(com.typesafe.config.ConfigFactory.defaultReference());
    for (Map.Entry<String, String> e : SymbolMap.STEPS.entrySet()) {
      assertTrue(known.contains(e.getValue()), e.getKey() + " -> " + e.getValue());
    }
    for (String step : SymbolMap.IOS_PER_UNIT.keySet()) {
      assertTrue(known.contains(step), step);
    }
    assertFalse(
        SymbolMap.STEPS.containsKey("blk_attempt_plug_merge"), "merges are not in the shape");
    assertEquals("__blkdev_direct_IO", SymbolMap.STEPS.get("__blkdev_direct_IO_async"));
    assertEquals("null_poll", SymbolMap.STEPS.get("iocb_bio_iopoll"));
    assertEquals("__io_submit_flush_completions", SymbolMap.STEPS.get("io_free_batch_list"));
    assertEquals("__io_submit_flush_completions", SymbolMap.STEPS.get("io_iopoll_complete"));
  }

  @Test
  void perfDiffLinesMapOntoSteps() throws IOException {
    PerfDiff d = PerfDiff.parse(resource("2.2-tag-alloc.diff"), "2.2");
    assertEquals(4, d.lines().size());
    PerfDiff.Line free = d.lines().get(3);
    assertEquals("__blk_mq_free_request", free.symbol());
    assertTrue(Double.isNaN(free.baselinePct()));
    assertEquals(0.71, free.deltaPct(), 1e-9);
    assertEquals("blk_mq_end_request", PerfDiff.stepOf(free));
    assertEquals(-1.05, d.lines().get(0).deltaPct(), 1e-9);
    assertEquals("__blk_mq_alloc_requests", PerfDiff.stepOf(d.lines().get(0)));
    assertEquals("io_uring_enter", PerfDiff.stepOf(d.lines().get(1)));
    List<String> listing = d.listing("2.2", 3_250_000);
    assertTrue(
        listing.stream().anyMatch(l -> l.contains("-3.23") && l.contains("blk_mq_get_tag")),
        String.join("\n", listing));
  }
}

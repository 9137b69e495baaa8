package blksim.actors.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.cost.CostLedger;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * 5.16's plug-cached requests and 5.17's batched completion of null_blk's polled requests, as the
 * profile's calls show them: which function runs how often per I/O, at which tag depth.
 */
class BatchingTest {
  private static final String SEED = Runs.D32 + "blksim.run.runtime = 5ms\n";

  private static Map<String, CostLedger.Entry> steps(RunResult r) {
    assertTrue(r.books().balanced(), r.books().violations().toString());
    return r.ledger().steps(0);
  }

  private static long calls(Map<String, CostLedger.Entry> steps, String fn) {
    CostLedger.Entry e = steps.get(fn);
    return e == null ? 0 : e.calls();
  }

  @Test
  void at64TagsAPlugOf32ShouldMissItsBatchAndTakeTagsOneByOne() {
    RunResult r = Runs.sequential(SEED, "kernel.preset=\"5.16\"");
    Map<String, CostLedger.Entry> s = steps(r);
    long ios = r.reaps();
    long enters = calls(s, "io_uring_enter");
    // 16-bit words (64 tags): every plug's first allocation asks for 32 and gets none
    assertEquals(enters, calls(s, "__sbitmap_queue_get_batch"), "one try per plug");
    assertEquals(ios, calls(s, "__sbitmap_queue_get"), "then a tag for each bio");
    assertEquals(ios, calls(s, "bio_queue_enter"), "and a queue enter for each bio");
  }

  @Test
  void at128TagsThePlugShouldCacheItsRequests() {
    RunResult r = Runs.sequential(SEED, "kernel.preset=\"5.16\"", "null-blk.hw-queue-depth=128");
    Map<String, CostLedger.Entry> s = steps(r);
    long ios = r.reaps();
    long batches = calls(s, "__sbitmap_queue_get_batch");
    // 32-bit words: a batch fits a word whose first free bit is 0; then the plug's bios take one
    // request each from its cache, without entering the queue
    assertTrue(batches > 0 && batches <= calls(s, "io_uring_enter"), "batches " + batches);
    assertEquals(
        calls(s, "bio_queue_enter"),
        batches + calls(s, "__sbitmap_queue_get"),
        "a bio enters the queue for a batch or a tag of its own, never for a cached request");
    assertTrue(calls(s, "bio_queue_enter") < ios / 8, "few bios enter the queue");
    RunResult k516at64 = Runs.sequential(SEED, "kernel.preset=\"5.16\"");
    assertTrue(r.reaps() > k516at64.reaps(), "cheaper per I/O than at 64 tags");
    RunResult off =
        Runs.sequential(
            SEED,
            "kernel.preset=\"5.16\"",
            "null-blk.hw-queue-depth=128",
            "kernel.patches=[no-plug-batch-alloc]");
    assertEquals(0, calls(steps(off), "__sbitmap_queue_get_batch"), "no-plug-batch-alloc");
    RunResult offAt64 =
        Runs.sequential(SEED, "kernel.preset=\"5.16\"", "kernel.patches=[no-plug-batch-alloc]");
    assertEquals(offAt64.reaps(), off.reaps(), "without it, depth does not matter");
    assertTrue(offAt64.reaps() >= k516at64.reaps(), "at 64 tags its failed try costs a little");
  }

  @Test
  void kernel517ShouldEndPolledRequestsAsABatch() {
    RunResult r = Runs.sequential(SEED, "kernel.preset=\"5.17\"");
    Map<String, CostLedger.Entry> s = steps(r);
    long ios = r.reaps();
    assertEquals(ios, calls(s, "blk_mq_end_request_batch"));
    assertEquals(0, calls(s, "blk_mq_end_request"), "no request ends by itself");
    assertEquals(0, calls(s, "blk_mq_free_request"), "no tag goes back by itself");
    long flushes = calls(s, "blk_mq_flush_tag_batch");
    assertTrue(flushes > 0 && flushes < ios / 8, "tags go back in groups: " + flushes);
    assertEquals(flushes, calls(s, "blk_queue_exit"), "one percpu_ref_put_many a flush");
    assertTrue(calls(s, "sbitmap_queue_clear_batch") >= flushes, "an atomic per word at least");
    RunResult k516 = Runs.sequential(SEED, "kernel.preset=\"5.16\"");
    assertEquals(
        k516.reaps(), calls(steps(k516), "blk_mq_end_request"), "5.16's null_poll: one by one");
    assertTrue(ios > k516.reaps(), "cheaper per I/O");
  }

  @Test
  void bothEnginesShouldAgreeWithBothBatches() {
    Runs.sameOnBothEngines(
        Runs.settings(SEED, "kernel.preset=\"5.17\"", "null-blk.hw-queue-depth=128"));
  }
}

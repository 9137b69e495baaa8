package blksim.queues.block.blk_mq;

import static org.junit.jupiter.api.Assertions.assertEquals;

import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioOwner;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A submission batch's bios by the queue each goes to, and the plug's {@code nr_ios}
 * (block/blk-mq.c 5.16, {@code blk_mq_get_new_requests}; docs/kernel.md section 5).
 */
class PlugBatchTest {
  /** A request of a batch, named. */
  record Req(String name) implements BioOwner {}

  @Test
  void theFirstQueuesAllocationTakesThePlugsBatchAndEveryLaterOneASingleRequest() {
    List<Bio> bios = new ArrayList<>();
    List<Req> reqs = new ArrayList<>();
    String[] to = {"hctx1", "hctx0", "hctx1", "hctx2", "hctx0"};
    for (int i = 0; i < to.length; i++) {
      bios.add(Bio.onStack(i));
      reqs.add(new Req("r" + i));
    }
    List<PlugBatch<String, Req>> groups =
        List.copyOf(PlugBatch.byQueue(bios, reqs, 5, (bio, req) -> to[bio.id()]));
    assertEquals(
        List.of("hctx1", "hctx0", "hctx2"),
        groups.stream().map(PlugBatch::to).toList(),
        "in the order each queue first appears");
    assertEquals(
        List.of(5, 1, 1),
        groups.stream().map(PlugBatch::plugNrIos).toList(),
        "plug->nr_ios = 1 after the first allocation");
    assertEquals(List.of(new Req("r0"), new Req("r2")), groups.get(0).reqs());
    assertEquals(List.of(0, 2), groups.get(0).bios().stream().map(Bio::id).toList());
    assertEquals(
        List.of(new Req("r1"), new Req("r4")), groups.get(1).reqs(), "each beside its bio");
  }

  @Test
  void aBatchOnOneQueueIsOneGroupWithThePlugsBatch() {
    List<PlugBatch<String, Req>> groups =
        List.copyOf(
            PlugBatch.byQueue(
                List.of(Bio.onStack(0), Bio.onStack(1)),
                List.of(new Req("a"), new Req("b")),
                2,
                (bio, req) -> "hctx0"));
    assertEquals(1, groups.size());
    assertEquals(2, groups.get(0).plugNrIos());
    assertEquals(2, groups.get(0).bios().size());
  }
}

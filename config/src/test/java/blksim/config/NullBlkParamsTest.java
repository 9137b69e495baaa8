package blksim.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NullBlkParamsTest {

  @Test
  void shouldTakeModprobeSyntaxWithTheKernelsNames() {
    NullBlkSettings n =
        new Scenario()
            .nullBlk(
                "queue_mode=2  submit_queues=4 poll-queues=2 irqmode=2 completion_nsec=0 "
                    + "hw_queue_depth=0x80 null_blk.bs=4096 no_sched gb=16")
            .settings()
            .nullBlk();
    assertEquals(4, n.submitQueues());
    assertEquals(2, n.pollQueues());
    assertEquals(NullBlkSettings.IrqMode.TIMER, n.irqmode());
    assertEquals(0, n.completionNsec());
    assertEquals(128, n.hwQueueDepth());
    assertEquals(4096, n.bs());
    assertTrue(n.noSched(), "a bare boolean parameter is set");
    assertEquals(16L << 30, n.sizeBytes());
    assertEquals(6, n.nrHwQueues());
  }

  @Test
  void shouldRoundTheBlockSizeAsNullBlkDoes() {
    assertEquals(
        4096, new Scenario().nullBlk("bs=8192").settings().nullBlk().bs(), "capped at PAGE_SIZE");
    assertEquals(
        1024, new Scenario().nullBlk("bs=1500").settings().nullBlk().bs(), "rounded down to 512s");
  }

  @Test
  void shouldRefuseUnknownUnmodelledAndMalformedParameters() {
    ConfigError unknown =
        assertThrows(ConfigError.class, () -> NullBlkParams.parse("hw_queue_dept=64"));
    assertTrue(
        unknown.getMessage().startsWith("null_blk: unknown parameter hw_queue_dept"),
        unknown.getMessage());
    assertTrue(unknown.getMessage().contains("hw_queue_depth"), "lists what is accepted");
    ConfigError unmodelled = assertThrows(ConfigError.class, () -> NullBlkParams.parse("zoned=1"));
    assertTrue(unmodelled.getMessage().contains("does not model yet"), unmodelled.getMessage());
    ConfigError value = assertThrows(ConfigError.class, () -> NullBlkParams.parse("irqmode=soft"));
    assertEquals(
        "null_blk: irqmode=soft is not an integer: accepted ASCII digits, decimal, 0x hex or 0"
            + " octal, as kstrtoint reads them",
        value.getMessage());
    // kstrtoint reads no other script's digits, which Java's Long.decode would
    ConfigError fullwidth =
        assertThrows(ConfigError.class, () -> NullBlkParams.parse("irqmode=\uFF11"));
    assertTrue(fullwidth.getMessage().contains("is not an integer"), fullwidth.getMessage());
    assertEquals(16L, NullBlkParams.parse("bs=0x10").getLong("blksim.null-blk.bs"));
    ConfigError bool = assertThrows(ConfigError.class, () -> NullBlkParams.parse("no_sched=maybe"));
    assertFalse(bool.getMessage().contains("\n"));
    ConfigError range =
        assertThrows(ConfigError.class, () -> new Scenario().nullBlk("irqmode=3").settings());
    assertTrue(range.getMessage().contains("accepted 0 to 2"), range.getMessage());
  }
}

package blksim.actors.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import akka.actor.testkit.typed.javadsl.BehaviorTestKit;
import akka.actor.testkit.typed.javadsl.TestInbox;
import blksim.actors.block.BlockDevice;
import blksim.actors.block.blk_mq.HwCtxActor;
import blksim.actors.cpu.Cpu;
import blksim.actors.drivers.null_blk.NullBlkActor;
import blksim.config.BlksimSettings;
import blksim.config.BooksSettings;
import blksim.queues.block.blk_mq.HctxFeatures;
import blksim.queues.block.blk_mq.HctxType;
import blksim.queues.block.blk_mq.HwCtx;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.PathCosts;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An actor shell reports to the clock exactly what its component sent, in order. */
class ComponentActorTest {
  private final BlksimSettings settings = BlksimSettings.defaults();
  private final PathCosts costs =
      PathCosts.of(settings.profile(), settings.kernel(), new PathCosts.Knobs(true, true, true));
  private final SimRef<HwCtxActor.Command> hctxRef = new SimRef<>(2, "nullb0-hctx1");
  private final SimRef<NullBlkActor.Command> deviceRef = new SimRef<>(3, "nullb0");
  private final SimRef<Cpu.Command> cpuRef = new SimRef<>(1, "cpu0");
  private final SimRef<BlockDevice.Reply> cpuReplies = cpuRef.adapt(r -> new Cpu.FromBlock(0, r));
  private final BlockDevice.Call call =
      new BlockDevice.Call(0, 0, CpuTime.POLL, cpuReplies, null, null);

  private HwCtxActor hwQueue() {
    return new HwCtxActor(
        hctxRef,
        new HwCtx(1, HctxType.POLL, 64, 1),
        deviceRef,
        costs,
        new BooksSettings(BooksSettings.Break.NONE, 1),
        HctxFeatures.NONE);
  }

  @Test
  void aPollShouldCallTheDriverRightAway() {
    TestInbox<Clock.Command> clock = TestInbox.create();
    BehaviorTestKit<HwCtxActor.Command> kit =
        BehaviorTestKit.create(ComponentActor.create(clock.getRef(), hwQueue()));
    kit.run(new HwCtxActor.FromUpper(new BlockDevice.PollBio(1_000, call, null)));
    // blk_mq_poll's cost is part of io_do_iopoll, charged by the CPU
    clock.expectMessage(
        new Clock.Processed(
            List.of(new Sent(deviceRef.id(), new NullBlkActor.PollQueue(1_000, 1, call.exec())))));
  }

  @Test
  void theDriversAnswerShouldReturnToTheCallingCpu() {
    TestInbox<Clock.Command> clock = TestInbox.create();
    BehaviorTestKit<HwCtxActor.Command> kit =
        BehaviorTestKit.create(ComponentActor.create(clock.getRef(), hwQueue()));
    kit.run(
        new HwCtxActor.FromUpper(
            new BlockDevice.PollBio(
                1_000, call, null))); // the CPU called: the queue knows where it returns
    clock.receiveMessage();
    kit.run(
        new HwCtxActor.FromDriver(
            new NullBlkActor.Queued(5_000, call.exec(), 32, List.of(), false)));
    clock.expectMessage(
        new Clock.Processed(
            List.of(
                new Sent(
                    cpuRef.id(),
                    new Cpu.FromBlock(
                        0, new BlockDevice.Submitted(5_000, 32, List.of(), List.of()))))));
  }

  @Test
  void aComponentThatThrowsShouldReportTheFailureInsteadOfHanging() {
    TestInbox<Clock.Command> clock = TestInbox.create();
    BehaviorTestKit<HwCtxActor.Command> kit =
        BehaviorTestKit.create(ComponentActor.create(clock.getRef(), hwQueue()));
    // a poll answer with a request this queue never allocated
    HwCtx other = new HwCtx(1, HctxType.POLL, 64, 1);
    var rq = other.allocRequest(0, null, 0);
    other.dispatched(rq);
    rq.markComplete();
    kit.run(new HwCtxActor.FromUpper(new BlockDevice.PollBio(0, call, null)));
    clock.receiveMessage();
    kit.run(new HwCtxActor.FromDriver(new NullBlkActor.PolledRqs(0, call.exec(), List.of(rq))));
    Clock.Command c = clock.receiveMessage();
    Clock.Failed failed = assertInstanceOf(Clock.Failed.class, c);
    assertEquals("nullb0-hctx1", failed.component());
  }

  @Test
  void sendingIntoThePastShouldBeRefused() {
    BufferedOutbox out = new BufferedOutbox();
    out.reset(100);
    assertThrows(
        IllegalStateException.class,
        () -> out.send(cpuReplies, new BlockDevice.Submitted(99, 1, List.of(), List.of())));
  }
}

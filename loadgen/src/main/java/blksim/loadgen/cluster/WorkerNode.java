package blksim.loadgen.cluster;

import akka.actor.Address;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.ClusterEvent;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Subscribe;
import blksim.loadgen.sweep.PointKey;
import blksim.loadgen.sweep.PointStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The guardian of a worker node ({@code blksim worker --join HOST:PORT}): its slots, and the
 * cluster's membership, to say when it has joined and to stop once the coordinator it joined has
 * left or is gone.
 */
public final class WorkerNode {
  private WorkerNode() {}

  /** What the guardian hears: the cluster's membership, and a slot that met another build. */
  public interface Command {}

  private record Membership(ClusterEvent.MemberEvent event) implements Command {}

  private record Refused() implements Command {}

  /**
   * A worker of {@code slots} slots that joined {@code coordinator}.
   *
   * @param exit told how the worker ended: 0 when its coordinator finished, 1 when it refused a
   *     coordinator of another build
   */
  public static Behavior<Command> create(
      NodeAddress coordinator,
      int slots,
      PointStore store,
      Executor runs,
      Function<PointKey, Path> compute,
      PrintStream log,
      java.util.function.IntConsumer exit) {
    return Behaviors.setup(ctx -> start(ctx, coordinator, slots, store, runs, compute, log, exit));
  }

  /** A method, not a block lambda: google-java-format 1.28 and 2.0 lay those out differently. */
  private static Behavior<Command> start(
      akka.actor.typed.javadsl.ActorContext<Command> ctx,
      NodeAddress coordinator,
      int slots,
      PointStore store,
      Executor runs,
      Function<PointKey, Path> compute,
      PrintStream log,
      java.util.function.IntConsumer exit) {
    Cluster cluster = Cluster.get(ctx.getSystem());
    cluster
        .subscriptions()
        .tell(
            Subscribe.create(
                ctx.messageAdapter(ClusterEvent.MemberEvent.class, Membership::new),
                ClusterEvent.MemberEvent.class));
    Address self = cluster.selfMember().address();
    String name = self.host().getOrElse(() -> "node") + "_" + self.port().getOrElse(() -> 0);
    for (int i = 0; i < slots; i++) {
      ctx.spawn(
          Worker.create(
              name + "-s" + i, store, runs, compute, log, () -> ctx.getSelf().tell(new Refused())),
          "slot-" + i);
    }
    return Behaviors.receive(Command.class)
        .onMessage(
            Membership.class,
            m -> onMember(m.event(), self, coordinator, slots, log, exit, ctx.getSystem()))
        .onMessage(Refused.class, r -> refused(exit))
        .build();
  }

  private static Behavior<Command> refused(java.util.function.IntConsumer exit) {
    exit.accept(1);
    return Behaviors.stopped();
  }

  private static Behavior<Command> onMember(
      ClusterEvent.MemberEvent e,
      Address self,
      NodeAddress coordinator,
      int slots,
      PrintStream log,
      java.util.function.IntConsumer exit,
      akka.actor.typed.ActorSystem<Void> system) {
    Address member = e.member().address();
    if (e instanceof ClusterEvent.MemberUp && member.equals(self)) {
      log.println(
          "blksim worker: joined the sweep of "
              + coordinator
              + " as "
              + self
              + ", "
              + slots
              + " slot(s)");
      log.flush();
    }
    boolean coordinatorGone =
        (e instanceof ClusterEvent.MemberRemoved || e instanceof ClusterEvent.MemberExited)
            && e.member().hasRole(ClusterNode.COORDINATOR);
    boolean selfGone = e instanceof ClusterEvent.MemberRemoved && member.equals(self);
    if (coordinatorGone || selfGone) {
      log.println(
          "blksim worker: the coordinator at " + coordinator + " has finished or gone; leaving");
      log.flush();
      exit.accept(0);
      return Behaviors.stopped();
    }
    return Behaviors.same();
  }
}

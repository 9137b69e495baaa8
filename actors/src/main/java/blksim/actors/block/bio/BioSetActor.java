package blksim.actors.block.bio;

import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.config.BooksSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import blksim.queues.block.bio.BioSetPath;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import java.util.List;

/**
 * The actor of a bio_set and its per-CPU caches ({@link BioSet}): CPUs call it to allocate bios
 * ({@code bio_alloc_kiocb}, falling back to {@code bio_alloc_bioset}) and to put them back. The
 * model's {@link BioSetPath} runs each call and charges it to the calling CPU; the answer returns
 * to that CPU.
 */
public final class BioSetActor extends AbstractComponent<BioSetActor.Command> {

  /** Everything a bioset understands. */
  public sealed interface Command extends SimMessage permits AllocBios, PutBios {}

  /** What a bioset answers; a caller receives it through an adapter of its own protocol. */
  public sealed interface Reply extends SimMessage permits Allocated, Put {}

  /** The bios asked for, one per request being submitted. */
  public record Allocated(long atPs, List<Bio> bios) implements Reply {}

  /** The bios put are back. */
  public record Put(long atPs) implements Reply {}

  /**
   * Allocate {@code count} bios on {@code cpu}.
   *
   * @param allocCache whether the caller may take them from the per-CPU cache: the kiocb's
   *     IOCB_ALLOC_CACHE, or a polled original's clone (seed 002 1/3)
   * @param nrVecs vecs per bio
   * @param cacheFn the function that pops the cache: {@code bio_alloc_kiocb}, {@code
   *     bio_alloc_clone}
   */
  public record AllocBios(
      long atPs,
      int cpu,
      CpuTime what,
      int count,
      boolean allocCache,
      int nrVecs,
      KernelFn cacheFn,
      SimRef<Reply> replyTo)
      implements Command {}

  /** The final {@code bio_put} of each bio, on {@code cpu}. */
  public record PutBios(long atPs, int cpu, CpuTime what, List<Bio> bios, SimRef<Reply> replyTo)
      implements Command {}

  private final BioSetPath path;

  public BioSetActor(
      String name, BioSet bioSet, PathCosts costs, BooksSettings.Break breakOnPurpose) {
    super(name, Command.class);
    this.path =
        new BioSetPath(
            bioSet, new Charger(costs, name()), breakOnPurpose == BooksSettings.Break.LEAK_BIO);
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(AllocBios.class, this::onAllocBios)
        .on(PutBios.class, this::onPutBios)
        .build();
  }

  private void onAllocBios(AllocBios m, Outbox out) {
    BioSetPath.Allocation a =
        path.bioAllocKiocb(
            m.atPs(), m.cpu(), m.what(), m.count(), m.allocCache(), m.nrVecs(), m.cacheFn());
    out.send(m.replyTo(), new Allocated(a.atPs(), a.bios()));
  }

  private void onPutBios(PutBios m, Outbox out) {
    out.send(m.replyTo(), new Put(path.bioPut(m.atPs(), m.cpu(), m.what(), m.bios())));
  }

  public BioSet bioSet() {
    return path.bioSet();
  }

  public CostLedger ledger() {
    return path.ledger();
  }
}

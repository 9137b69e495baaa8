package blksim.actors.block.bio;

import blksim.actors.engine.AbstractComponent;
import blksim.actors.engine.Handlers;
import blksim.actors.engine.Outbox;
import blksim.actors.engine.SimMessage;
import blksim.actors.engine.SimRef;
import blksim.config.BooksSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import blksim.queues.cost.Charger;
import blksim.queues.cost.Contention;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CostStep;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.PathCosts;
import blksim.queues.time.SpinLock;
import java.util.ArrayList;
import java.util.List;

/**
 * The actor of a bio_set and its per-CPU caches ({@link BioSet}): CPUs call it to allocate bios
 * ({@code bio_alloc_kiocb}, falling back to {@code bio_alloc_bioset}) and to put them back. The
 * work is charged to the calling CPU, and the call returns to it.
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

  private final BioSet bioSet;
  private final Charger charger;
  private final SpinLock listLock = new SpinLock("slab list_lock");
  private final CostStep listLockLine;
  private boolean leakOne;

  public BioSetActor(
      String name, BioSet bioSet, PathCosts costs, BooksSettings.Break breakOnPurpose) {
    super(name, Command.class);
    this.bioSet = bioSet;
    this.charger = new Charger(costs, name());
    this.listLockLine = new CostStep(Contention.LINE_SLAB_LIST_LOCK, costs.lineTransferPs());
    this.leakOne = breakOnPurpose == BooksSettings.Break.LEAK_BIO;
  }

  @Override
  protected Handlers<Command> createHandlers() {
    return Handlers.<Command>builder()
        .on(AllocBios.class, this::onAllocBios)
        .on(PutBios.class, this::onPutBios)
        .build();
  }

  private void onAllocBios(AllocBios m, Outbox out) {
    List<Bio> bios = new ArrayList<>(m.count());
    long t = m.atPs();
    for (int i = 0; i < m.count(); i++) {
      BioSet.CacheAlloc cached = bioSet.allocPercpuCache(m.cpu(), m.allocCache(), m.nrVecs());
      if (cached.spliced()) {
        t += charge(m.cpu(), m.what(), KernelFn.BIO_ALLOC_IRQ_CACHE_SPLICE);
      }
      Bio bio = cached.bio();
      if (bio != null) {
        t += charge(m.cpu(), m.what(), m.cacheFn());
      } else {
        BioSet.SlabAlloc slab = bioSet.allocBioset(m.cpu(), m.allocCache(), m.nrVecs());
        bio = slab.bio();
        t += slabSlowPath(slab.slowPath(), m.cpu(), m.what(), t);
        t +=
            charge(m.cpu(), m.what(), KernelFn.BIO_ALLOC_BIOSET)
                + charge(m.cpu(), m.what(), KernelFn.KMEM_CACHE_ALLOC);
      }
      t += charge(m.cpu(), m.what(), KernelFn.BIO_INIT);
      bios.add(bio);
    }
    out.send(m.replyTo(), new Allocated(t, bios));
  }

  private void onPutBios(PutBios m, Outbox out) {
    long t = m.atPs();
    for (Bio bio : m.bios()) {
      if (leakOne) {
        leakOne = false;
        bioSet.leak(bio);
        continue;
      }
      BioSet.Put put = bioSet.put(m.cpu(), bio, m.what().inInterrupt());
      t += slabSlowPath(put.slowPath(), m.cpu(), m.what(), t);
      t += charge(m.cpu(), m.what(), PUT_FN.get(put.path()));
      if (put.pruned() > 0) {
        // bio_alloc_cache_prune: a bio_free for each bio it frees
        t += charger.charge(m.cpu(), m.what(), KernelFn.BIO_FREE, put.pruned());
      }
    }
    out.send(m.replyTo(), new Put(t));
  }

  private static final java.util.Map<BioSet.PutPath, KernelFn> PUT_FN =
      java.util.Map.of(
          BioSet.PutPath.CACHED, KernelFn.BIO_PUT,
          BioSet.PutPath.CACHED_IRQ, KernelFn.BIO_PUT_IRQ_LIST,
          BioSet.PutPath.FREED, KernelFn.BIO_FREE);

  /**
   * If an alloc or free took SLUB's slow path, what other CPUs make the node's list_lock cost:
   * waiting for it and pulling its line over. The uncontended slow path is already in the profiled
   * averages of kmem_cache_alloc and bio_free, so it is not charged again.
   */
  private long slabSlowPath(boolean slowPath, int cpu, CpuTime what, long atPs) {
    if (!slowPath) {
      return 0;
    }
    PathCosts costs = charger.costs();
    SpinLock.Acquired a =
        listLock.acquire(cpu, atPs, costs.slabListHoldPs(), costs.lineTransferPs());
    return charger.lock(cpu, what, a, Contention.LOCK_WAIT_SLAB_LIST_LOCK, listLockLine);
  }

  private long charge(int cpu, CpuTime what, KernelFn fn) {
    return charger.charge(cpu, what, fn, 1);
  }

  public BioSet bioSet() {
    return bioSet;
  }

  public CostLedger ledger() {
    return charger.ledger();
  }
}

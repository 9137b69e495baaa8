package blksim.queues.fs.aio;

import blksim.config.BlksimSettings;
import blksim.queues.block.bio.Bio;
import blksim.queues.block.bio.BioSet;
import blksim.queues.block.bio.BioSetPath;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import blksim.queues.cost.ReferenceCosts;
import blksim.queues.io_uring.Sqe;
import java.util.ArrayList;
import java.util.List;

/**
 * One task's libaio context on CPU 0 with the reference profile's prices (no variation), its
 * io_submit and io_getevents, and the raw block device's bio set (its mempool and per-CPU cache,
 * charged in a ledger of its own, as the bio set's actor does): what {@link IoSubmit} and {@link
 * ReadEvents} run against in these tests, without a CPU.
 */
final class AioModels {
  static final int CPU = 0;
  static final int BS = 512;

  final Charger charger = new Charger(ReferenceCosts.of(), "cpu0");
  final KioCtx ctx;
  final IoSubmit submit;
  final ReadEvents events;

  /** {@code blkdev_dio_pool}, with a per-CPU cache as the reference settings give it. */
  final BioSet bioSet = new BioSet("blkdev_dio_pool", BlksimSettings.defaults().bioset(), 1);

  private final BioSetPath bioSetPath = new BioSetPath(bioSet, charger(), false);
  private long off;

  /** A context of {@code nrEvents} events ({@code io_setup}). */
  AioModels(int nrEvents) {
    this.ctx = new KioCtx(nrEvents);
    this.submit = new IoSubmit(charger, CPU, ctx, "cpu0");
    this.events = new ReadEvents(charger, CPU, ctx);
  }

  /** {@code n} iocbs of {@code BS} bytes of file 0, each at its own offset, stamped at 0. */
  List<Sqe> iocbs(int n) {
    List<Sqe> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new Sqe(Sqe.IORING_OP_READ, 0, 0, off, BS, 0, 0));
      off += 8 * BS;
    }
    return out;
  }

  /** The bio set's answer to {@code a}: {@code bio_alloc_kiocb} of its bios, as it asks. */
  List<Bio> bios(AioCall.AllocBios a) {
    return bios(a.nr(), a.allocCache());
  }

  /** {@code bio_alloc_kiocb} of {@code n} bios, from the per-CPU cache if {@code allocCache}. */
  List<Bio> bios(int n, boolean allocCache) {
    return bioSetPath
        .bioAllocKiocb(0, CPU, CpuTime.SUBMIT, n, allocCache, 1, KernelFn.BIO_ALLOC_KIOCB)
        .bios();
  }

  /** io_submit of {@code n} iocbs, down to their bios' submission. */
  AioCall.SubmitBios submitted(int n) {
    AioCall.AllocBios a = (AioCall.AllocBios) submit.ioSubmit(iocbs(n), 0);
    return submit.bioAllocated(bios(a), a.atPs());
  }

  /** {@link #submitted}, and {@code ended} of them ended in queue_rq: their events are posted. */
  AioCall.SubmitBios submittedAndEnded(int n, int ended) {
    AioCall.SubmitBios s = submitted(n);
    submit.submitBioReturned(s.bios().subList(0, ended), List.of(), s.atPs());
    return s;
  }

  /** Calls of {@code fn} charged to the CPU so far. */
  long calls(KernelFn fn) {
    CostLedger.Entry e = charger.ledger().steps(CPU, id -> id.toString()).get(fn.name());
    return e == null ? 0 : e.calls();
  }

  /** The price of one call of {@code fn}, in ps. */
  long price(KernelFn fn) {
    return charger.costs().step(fn).ps();
  }

  /** The price of one call of each of {@code fns}, in ps. */
  long price(KernelFn[] fns) {
    long ps = 0;
    for (KernelFn fn : fns) {
      ps += price(fn);
    }
    return ps;
  }

  private static Charger charger() {
    return new Charger(ReferenceCosts.of(), "blkdev_dio_pool");
  }
}

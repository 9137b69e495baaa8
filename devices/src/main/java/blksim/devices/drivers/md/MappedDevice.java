package blksim.devices.drivers.md;

import blksim.config.DmTable;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import blksim.queues.cost.Charger;
import blksim.queues.cost.CostLedger;
import blksim.queues.cost.CpuTime;
import blksim.queues.cost.KernelFn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Models {@code struct mapped_device} of a bio-based dm-linear device (drivers/md/dm.c, 5.18-5.19;
 * docs/kernel.md sections 4.2 and 4.3): its live table, the dm_ios in flight, the list of polled
 * dm_ios hung on each original ({@code REQ_DM_POLL_LIST}), the deferred list ({@code md->deferred})
 * that {@code md->wq} resubmits, and the bio-based I/O path through it, charged to the calling CPU.
 *
 * <p>A CPU's call enters at {@link #dmSubmitBio}, {@link #dmPollBio}, {@link
 * #cloneEndioInInterrupt} or {@link #dmResume}; each returns a {@link DmNext}: the crossing into
 * io_bs or a device below, with the call ({@link DmCall}) to resume with once it answers ({@link
 * #dmSplitAndProcessBio}, {@link #clonesSubmitted}, {@link #clonePolled}, {@link #clonesPut}), or
 * the return to the caller.
 */
public final class MappedDevice {
  /** EAGAIN, {@code blk_status_to_errno(BLK_STS_AGAIN)}. */
  public static final int EAGAIN = 11;

  /**
   * An original's way in: submit_bio_noacct and __submit_bio of a bio-based disk, per bio, which
   * enters the queue around the driver's submit_bio.
   */
  static final KernelFn[] SUBMIT_PATH = {
    KernelFn.SUBMIT_BIO_NOACCT,
    KernelFn.BIO_QUEUE_ENTER,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_LOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK_NESTED,
    KernelFn.RCU_READ_UNLOCK,
    KernelFn.DM_SUBMIT_BIO,
    KernelFn.BLK_QUEUE_EXIT,
    KernelFn.RCU_READ_LOCK,
    KernelFn.RCU_READ_UNLOCK
  };

  /** From the clone allocated to its remapped submission, per bio. */
  static final KernelFn[] MAP_PATH = {
    KernelFn.DM_ALLOC_IO,
    KernelFn.BIO_CLONE,
    KernelFn.BIO_ASSOCIATE_BLKG,
    KernelFn.LINEAR_MAP,
    KernelFn.DM_START_IO_ACCT
  };

  /** dm_io_complete with its accounting, per io. */
  static final KernelFn[] COMPLETE_PATH = {KernelFn.DM_IO_COMPLETE, KernelFn.DM_END_IO_ACCT};

  /** Why a bio was requeued. */
  public enum Requeue {
    /** A polled clone ended with {@code BLK_STS_AGAIN} (REQ_NOWAIT found no tag below). */
    POLLED_EAGAIN,
    /** A REQ_NOWAIT bio came while the device was suspended: {@code bio_wouldblock_error}. */
    SUSPENDED_NOWAIT,
    /** Any other bio came while the device was suspended: {@code queue_io}, until resume. */
    SUSPENDED_DEFERRED
  }

  /**
   * The devices under the table as {@code submit_bio_noacct} of a clone finds them: the hardware
   * queue of {@code device} that a bio, polled or not, submitted on {@code cpu} maps to ({@code
   * blk_mq_map_queue}).
   */
  @FunctionalInterface
  public interface QueuesBelow {
    int hctx(String device, int cpu, boolean polled);
  }

  private final String name;
  private final DmTable table;
  private final List<LinearTarget> targets;
  private final boolean supportsPoll;
  private final boolean cloneCache;
  private final QueuesBelow below;
  private final Charger charger;
  private final Map<Bio, DmIo> pollList = new IdentityHashMap<>();
  private final Map<Integer, ArrayDeque<Bio>> deferred = new TreeMap<>();
  private final Map<Requeue, Long> requeues = new EnumMap<>(Requeue.class);
  private final ArrayDeque<Bio> heldForSuspend = new ArrayDeque<>();
  private boolean suspended;
  private long pending;
  private long allocated;
  private long completed;
  private long resubmitted;

  /**
   * @param supportsPoll {@code dm_table_supports_poll}: every device under the table polls
   * @param cloneCache whether a polled original's clone may come from io_bs's per-CPU cache (seed
   *     002 1/3; the cache itself is io_bs's)
   * @param below the hardware queues of the devices under the table
   * @param charger what the device's path is charged to, by the calling CPU
   */
  public MappedDevice(
      String name,
      DmTable table,
      boolean supportsPoll,
      boolean cloneCache,
      QueuesBelow below,
      Charger charger) {
    this.name = name;
    this.table = table;
    this.targets = table.targets().stream().map(LinearTarget::new).toList();
    this.supportsPoll = supportsPoll;
    this.cloneCache = cloneCache;
    this.below = below;
    this.charger = charger;
    for (Requeue r : Requeue.values()) {
      requeues.put(r, 0L);
    }
  }

  // ---- The calls of a CPU into the device ----

  /**
   * {@code submit_bio} of {@code bios} on the DM disk: {@code submit_bio_noacct} and {@code
   * __submit_bio} of each into {@code dm_submit_bio}. While {@code DMF_BLOCK_IO_FOR_SUSPEND} is set
   * nothing reaches the table ({@link #blockedForSuspend}); else {@code dm_split_and_process_bio}
   * allocates a clone of each from io_bs.
   */
  public DmNext dmSubmitBio(int cpu, CpuTime what, long atPs, List<Bio> bios) {
    Running x = new Running(DmCall.Kind.SUBMIT, cpu, what, bios);
    long t = atPs + charge(x, SUBMIT_PATH, bios.size());
    if (suspended) {
      return whileSuspended(x, t);
    }
    return allocClones(x, t, bios);
  }

  /**
   * {@code bio_poll} of {@code bio} on the DM disk, {@code dm_poll_bio}: the clone of the io hung
   * on it is polled below while it is still out ({@code dm_poll_dm_io}: {@code io_count > 1}, and
   * only once it has a cookie: a clone not yet submitted below gives {@code bio_poll} nothing to
   * poll).
   *
   * <p>An original that has no io hung on it was requeued and is no longer polled: {@code bio_poll}
   * sees {@code BLK_QC_T_NONE} and returns 0; what this CPU deferred while the device was suspended
   * is md->wq's to submit now.
   */
  public DmNext dmPollBio(int cpu, CpuTime what, long atPs, Bio bio) {
    Running x = new Running(DmCall.Kind.POLL, cpu, what, List.of(bio));
    DmIo io = pollIo(bio);
    if (io == null) {
      return nextGroup(x, atPs, List.of());
    }
    long t = atPs + charge(x, KernelFn.DM_POLL_BIO, 1);
    if (io.ioCount() > 1 && io.clone().cookie() != Bio.BLK_QC_T_NONE) {
      t += charge(x, KernelFn.BIO_POLL, 1);
      return new DmNext.PollClone(t, io, io.clone().cookie(), x.freeze());
    }
    return afterPoll(x, t, io);
  }

  /**
   * An interrupt on {@code cpu} ended {@code clones}: {@code bio_endio} of each runs {@code
   * clone_endio}, then {@code free_io} puts the clones of the dm_ios that completed. A clone ended
   * by interrupt is not polled, so none is requeued.
   */
  public DmNext cloneEndioInInterrupt(int cpu, CpuTime what, long atPs, List<Bio> clones) {
    Running x = new Running(DmCall.Kind.IRQ, cpu, what, List.of());
    long t = atPs + endClones(x, clones);
    if (hasDeferred(cpu)) {
      throw new InvariantBroken(name + ": a clone ended by interrupt was requeued");
    }
    return putClones(x, t);
  }

  /**
   * {@code __dm_resume} → {@code dm_queue_flush}: the device takes I/O again ({@link #resume}) and
   * md->wq's work, queued on {@code cpu}, wakes its kworker there, which runs {@code dm_wq_work}:
   * each bio the suspend deferred is submitted again.
   */
  public DmNext dmResume(int cpu, CpuTime what, long atPs) {
    Running x = new Running(DmCall.Kind.SUBMIT, cpu, what, List.of());
    List<Bio> origs = resume();
    if (origs.isEmpty()) {
      return finish(x, atPs);
    }
    long t =
        atPs
            + charge(x, KernelFn.TRY_TO_WAKE_UP, 1)
            + charge(x, KernelFn.SCHEDULE, 1)
            + charge(x, KernelFn.DM_WQ_WORK, origs.size())
            + charge(x, SUBMIT_PATH, origs.size());
    return allocClones(x, t, origs);
  }

  // ---- Resuming a call once the component it crossed into answers ----

  /**
   * The rest of {@code dm_split_and_process_bio} once io_bs gave a clone for each original: {@code
   * alloc_io} and {@code __map_bio} → {@code linear_map} → {@code DM_MAPIO_REMAPPED} ({@link
   * #allocIoAndMap}), the end of the submission ({@link #submitted}), and each clone's {@code
   * submit_bio_noacct}, queued on {@code current->bio_list} and issued once {@code dm_submit_bio}
   * returns: the clones go below grouped by the hardware queue they map to, under the caller's
   * plug; under md->wq's worker each clone is a group of its own ({@code dm_wq_work} submits
   * without a plug, so each is issued before the next is allocated).
   */
  public DmNext dmSplitAndProcessBio(DmNext.AllocClones alloc, long atPs, List<Bio> clones) {
    Running x = new Running(alloc.call());
    Map<Queue, Plugged> open = new HashMap<>();
    List<Plugged> round = new ArrayList<>();
    for (int i = 0; i < clones.size(); i++) {
      DmIo io = allocIoAndMap(x.origs.get(i), clones.get(i));
      submitted(io);
      String device = io.target().device();
      Queue q = new Queue(device, below.hctx(device, x.cpu, io.clone().polled()));
      Plugged g = x.resubmitting ? null : open.get(q);
      if (g == null) {
        g = new Plugged(q, io.clone().polled(), new ArrayList<>());
        open.put(q, g);
        round.add(g);
      }
      g.clones().add(io.clone());
    }
    long t = atPs + charge(x, MAP_PATH, clones.size());
    List<DmNext.CloneGroup> groups = new ArrayList<>(round.size());
    for (Plugged g : round) {
      groups.add(
          new DmNext.CloneGroup(g.queue().device(), g.queue().hctx(), g.polled(), g.clones()));
    }
    return nextGroup(x, t, groups);
  }

  /**
   * {@code submit_bio_noacct} of a group of clones returned: {@code clone_endio} of those it ended
   * at once and of those it turned away with {@code BLK_STS_AGAIN}; then the next group.
   */
  public DmNext clonesSubmitted(
      DmNext.SubmitClones submit, long atPs, List<Bio> ended, List<Bio> wouldBlock) {
    Running x = new Running(submit.call());
    long t = atPs + endClones(x, ended) + endClones(x, wouldBlock);
    List<DmNext.CloneGroup> rest = submit.groups().subList(1, submit.groups().size());
    return nextGroup(x, t, rest);
  }

  /**
   * {@code bio_poll} of the clone returned: {@code clone_endio} of what it ended, then the end of
   * {@code dm_poll_bio}.
   */
  public DmNext clonePolled(DmNext.PollClone poll, long atPs, List<Bio> ended) {
    Running x = new Running(poll.call());
    return afterPoll(x, atPs + endClones(x, ended), poll.io());
  }

  /** {@code free_io}'s {@code bio_put} of the clones returned: so does the call. */
  public DmNext.Return clonesPut(DmNext.PutClones put, long atPs) {
    return finish(new Running(put.call()), atPs);
  }

  // ---- The path between the crossings ----

  /**
   * {@code dm_submit_bio} while {@code DMF_BLOCK_IO_FOR_SUSPEND} is set, for each original: {@code
   * queue_io}, or {@code bio_wouldblock_error} of a REQ_NOWAIT one.
   */
  private DmNext whileSuspended(Running x, long t) {
    for (Bio orig : x.origs) {
      if (blockedForSuspend(orig)) {
        t += charge(x, KernelFn.QUEUE_IO, 1);
      } else {
        x.failed.add(orig);
        t += charge(x, KernelFn.BIO_WOULDBLOCK_ERROR, 1);
      }
    }
    return finish(x, t);
  }

  /**
   * {@code bio_alloc_clone} from io_bs for each of {@code origs}: polled ones from the per-CPU
   * cache if allowed.
   */
  private DmNext allocClones(Running x, long t, List<Bio> origs) {
    x.origs = origs;
    boolean polled = origs.get(0).polled();
    return new DmNext.AllocClones(t, origs.size(), cloneCache && polled, x.freeze());
  }

  /**
   * After the round's clones: the next group goes below; when none is left, md->wq's worker submits
   * what was deferred on this CPU, unless the device is suspended ({@code dm_wq_work} stops while
   * {@code DMF_BLOCK_IO_FOR_SUSPEND} is set: the bios wait for the resume); then, the worker done,
   * the caller is switched back in, and the clones of the completed dm_ios are put.
   */
  private DmNext nextGroup(Running x, long t, List<DmNext.CloneGroup> groups) {
    if (!groups.isEmpty()) {
      return new DmNext.SubmitClones(t, groups, x.freeze());
    }
    if (hasDeferred(x.cpu) && !suspended) {
      return dmWqWork(x, t);
    }
    if (x.resubmitting) {
      x.resubmitting = false;
      t += charge(x, KernelFn.SCHEDULE, 1);
    }
    return putClones(x, t);
  }

  /**
   * md->wq's work, queued by {@code queue_io}: the kworker of this CPU's bound pool is woken and,
   * as the woken task preempts the caller, runs {@code dm_wq_work} at once: each deferred original
   * is submitted again, not polled.
   */
  private DmNext dmWqWork(Running x, long t) {
    List<Bio> origs = takeDeferred(x.cpu);
    if (!x.resubmitting) {
      x.resubmitting = true;
      t += charge(x, KernelFn.TRY_TO_WAKE_UP, 1) + charge(x, KernelFn.SCHEDULE, 1);
    }
    t += charge(x, KernelFn.DM_WQ_WORK, origs.size()) + charge(x, SUBMIT_PATH, origs.size());
    return allocClones(x, t, origs);
  }

  /**
   * The end of {@code dm_poll_bio}: the polled io completes if only the polling side's reference is
   * left ({@link #pollDone}); if it failed with {@code BLK_STS_AGAIN} it is requeued, and md->wq's
   * worker submits it again from here.
   */
  private DmNext afterPoll(Running x, long t, DmIo io) {
    if (pollDone(io)) {
      t += dmIoComplete(x, io);
    }
    return nextGroup(x, t, List.of());
  }

  /**
   * {@code clone_endio} of each bio that ended below; bios that are not this device's clones (the
   * raw bios a poll of a shared hardware queue found) are handed back as they are.
   *
   * @return the time it took
   */
  private long endClones(Running x, List<Bio> bios) {
    long ps = 0;
    for (Bio bio : bios) {
      if (!(bio.owner() instanceof DmIo io) || io.md() != this) {
        x.ended.add(bio);
        continue;
      }
      ps += charge(x, KernelFn.CLONE_ENDIO, 1);
      if (cloneEndio(bio)) {
        ps += dmIoComplete(x, io);
      }
    }
    return ps;
  }

  /**
   * {@code dm_io_complete} with its accounting: the clone is freed with the io; the original ends
   * ({@code -EAGAIN}: turned away), or is requeued ({@link #complete}).
   *
   * @return the time it took
   */
  private long dmIoComplete(Running x, DmIo io) {
    long ps = charge(x, COMPLETE_PATH, 1);
    x.toPut.add(io.clone());
    if (complete(io, x.cpu) == Completion.REQUEUED) {
      return ps + charge(x, KernelFn.QUEUE_IO, 1);
    }
    if (io.orig().status() == -EAGAIN) {
      x.failed.add(io.orig());
    } else {
      x.ended.add(io.orig());
    }
    return ps;
  }

  /** {@code free_io} of the completed dm_ios: {@code bio_put} of their clones to io_bs. */
  private DmNext putClones(Running x, long t) {
    if (x.toPut.isEmpty()) {
      return finish(x, t);
    }
    List<Bio> put = List.copyOf(x.toPut);
    x.toPut.clear();
    return new DmNext.PutClones(t, put, x.freeze());
  }

  /** The call returns to the CPU that made it. */
  private DmNext.Return finish(Running x, long t) {
    if (x.kind != DmCall.Kind.SUBMIT && !x.failed.isEmpty()) {
      throw new InvariantBroken(
          name + ": a resubmitted bio ended -EAGAIN outside a submission (not modelled)");
    }
    return new DmNext.Return(t, x.cpu, x.kind, x.origs.size() - x.failed.size(), x.ended, x.failed);
  }

  private long charge(Running x, KernelFn fn, int calls) {
    return charger.charge(x.cpu, x.what, fn, calls);
  }

  private long charge(Running x, KernelFn[] fns, int calls) {
    return charger.charge(x.cpu, x.what, fns, calls);
  }

  /** A hardware queue of a device below: the clones of a round that go to it are one group. */
  private record Queue(String device, int hctx) {}

  /** The clones of a round gathered for one hardware queue so far, polled as the first. */
  private record Plugged(Queue queue, boolean polled, List<Bio> clones) {}

  /** A call while it runs on its CPU, between two crossings: a {@link DmCall} thawed. */
  private static final class Running {
    final DmCall.Kind kind;
    final int cpu;
    final CpuTime what;
    List<Bio> origs;
    boolean resubmitting;
    final List<Bio> ended;
    final List<Bio> failed;
    final List<Bio> toPut;

    Running(DmCall.Kind kind, int cpu, CpuTime what, List<Bio> origs) {
      this(new DmCall(kind, cpu, what, origs, false, List.of(), List.of(), List.of()));
    }

    Running(DmCall c) {
      this.kind = c.kind();
      this.cpu = c.cpu();
      this.what = c.what();
      this.origs = c.origs();
      this.resubmitting = c.resubmitting();
      this.ended = new ArrayList<>(c.ended());
      this.failed = new ArrayList<>(c.failed());
      this.toPut = new ArrayList<>(c.toPut());
    }

    DmCall freeze() {
      return new DmCall(kind, cpu, what, origs, resubmitting, ended, failed, toPut);
    }
  }

  // ---- The state of the device, one dm.c function each ----

  /**
   * {@code alloc_io} with its clone from {@code io_bs} ({@code bio_alloc_clone} copies the
   * original's {@code bi_iter}), then {@code __map_bio} through the target that {@code
   * dm_table_find_target} finds for the original's sector: {@code linear_map}, {@code
   * DM_MAPIO_REMAPPED}. The clone is polled if the original is.
   *
   * @return the dm_io, whose clone is ready for {@code submit_bio_noacct}
   */
  public DmIo allocIoAndMap(Bio orig, Bio clone) {
    LinearTarget ti = findTarget(orig.sector());
    DmIo io = new DmIo(this, orig, clone, ti);
    clone.setOwner(io);
    clone.setRange(orig.sector(), orig.sizeBytes());
    ti.linearMap(clone);
    if (orig.polled()) {
      clone.setPolled();
    }
    pending++;
    allocated++;
    return io;
  }

  /**
   * The end of {@code dm_split_and_process_bio}: a polled io keeps its submission reference and is
   * hung on its original ({@code dm_queue_poll_io}, which sets the cookie); any other drops it.
   *
   * @return whether the io completed (its clone had already ended)
   */
  public boolean submitted(DmIo io) {
    if (io.polled()) {
      pollList.put(io.orig(), io);
      io.orig().setCookie(0);
      return false;
    }
    return io.decPending(0);
  }

  /**
   * {@code clone_endio} of a clone: linear has no {@code end_io}; {@code free_tio} is a no-op for
   * the embedded tio; {@code dm_io_dec_pending} with the clone's status.
   *
   * @return whether its io completed
   */
  public boolean cloneEndio(Bio clone) {
    DmIo io = (DmIo) clone.owner();
    return io.decPending(clone.status());
  }

  /**
   * {@code dm_poll_bio} of an original, first half: whether its io still needs its clone polled
   * ({@code dm_poll_dm_io}: only while {@code io_count > 1}).
   *
   * @return the io hung on {@code orig}, or null when it has none: a requeued original is no longer
   *     polled, and {@code bio_poll} returns 0 before calling {@code dm_poll_bio}
   */
  public DmIo pollIo(Bio orig) {
    return pollList.get(orig);
  }

  /**
   * {@code dm_poll_bio}, second half: a done io (only the polling side's reference left) is
   * released with {@code __dm_io_dec_pending}; an unfinished one stays on the list.
   *
   * @return whether the io completed
   */
  public boolean pollDone(DmIo io) {
    if (io.ioCount() > 1) {
      return false;
    }
    pollList.remove(io.orig());
    return io.decPending(0);
  }

  /** What {@link #complete} did with the original. */
  public enum Completion {
    /** {@code bio_endio(orig)} with the io's status. */
    ENDED,
    /** {@code bio_clear_polled(orig)}, then {@code queue_io}: on the deferred list. */
    REQUEUED
  }

  /**
   * {@code dm_io_complete}: {@code dm_end_io_acct}, {@code free_io} (the clone is put by the
   * caller), then the original: a polled one that failed with {@code BLK_STS_AGAIN} loses {@code
   * REQ_POLLED} and the per-CPU cache flag and is deferred on {@code cpu}; any other ends with the
   * io's status.
   */
  public Completion complete(DmIo io, int cpu) {
    pending--;
    completed++;
    Bio orig = io.orig();
    if (io.status() == -EAGAIN && io.polled()) {
      pollList.remove(orig);
      orig.clearPolled();
      orig.setCookie(Bio.BLK_QC_T_NONE);
      deferred.computeIfAbsent(cpu, c -> new ArrayDeque<>()).addLast(orig);
      requeues.merge(Requeue.POLLED_EAGAIN, 1L, Long::sum);
      return Completion.REQUEUED;
    }
    orig.setStatus(io.status());
    return Completion.ENDED;
  }

  /**
   * {@code dm_wq_work} on {@code cpu}: takes the bios deferred there, to be submitted again, not
   * polled.
   */
  public List<Bio> takeDeferred(int cpu) {
    if (suspended) {
      throw new InvariantBroken(name + ": md->wq submitted deferred bios while suspended");
    }
    ArrayDeque<Bio> q = deferred.getOrDefault(cpu, new ArrayDeque<>());
    List<Bio> all = new ArrayList<>(q);
    q.clear();
    resubmitted += all.size();
    for (Bio bio : all) {
      bio.setStatus(0);
    }
    return all;
  }

  /** Whether {@code md->deferred} holds bios requeued on {@code cpu}. */
  public boolean hasDeferred(int cpu) {
    ArrayDeque<Bio> q = deferred.get(cpu);
    return q != null && !q.isEmpty();
  }

  /**
   * {@code __dm_suspend}: sets {@code DMF_BLOCK_IO_FOR_SUSPEND} (noflush: nothing is pushed back).
   */
  public void suspend() {
    suspended = true;
  }

  /** Whether {@code DMF_BLOCK_IO_FOR_SUSPEND} is set. */
  public boolean suspended() {
    return suspended;
  }

  /**
   * {@code dm_submit_bio} while suspended: a REQ_NOWAIT bio ends with {@code BLK_STS_AGAIN} ({@code
   * bio_wouldblock_error}); any other goes on {@code md->deferred} ({@code queue_io}).
   *
   * @return whether it was deferred (else it ended, its status -EAGAIN)
   */
  public boolean blockedForSuspend(Bio orig) {
    if (orig.nowait()) {
      orig.setStatus(-EAGAIN);
      requeues.merge(Requeue.SUSPENDED_NOWAIT, 1L, Long::sum);
      return false;
    }
    heldForSuspend.addLast(orig);
    requeues.merge(Requeue.SUSPENDED_DEFERRED, 1L, Long::sum);
    return true;
  }

  /**
   * {@code __dm_resume} → {@code dm_queue_flush}: the device takes I/O again, and md->wq's worker
   * submits what was deferred.
   *
   * @return the deferred bios, in order
   */
  public List<Bio> resume() {
    suspended = false;
    List<Bio> all = new ArrayList<>(heldForSuspend);
    heldForSuspend.clear();
    resubmitted += all.size();
    return all;
  }

  /** {@code dm_table_find_target}: the target whose sectors hold {@code sector}. */
  LinearTarget findTarget(long sector) {
    for (LinearTarget t : targets) {
      if (sector < t.ti().end()) {
        return t;
      }
    }
    throw new InvariantBroken(name + ": sector " + sector + " is past the table's end");
  }

  public String name() {
    return name;
  }

  public DmTable table() {
    return table;
  }

  /** {@code dm_table_supports_poll} of the live table. */
  public boolean supportsPoll() {
    return supportsPoll;
  }

  /** Requeues of each cause so far. */
  public Map<Requeue, Long> requeues() {
    return Map.copyOf(requeues);
  }

  /** Originals that md->wq submitted again. */
  public long resubmitted() {
    return resubmitted;
  }

  /** dm_ios allocated. */
  public long allocated() {
    return allocated;
  }

  /** The CPU time the device's path took, by CPU. */
  public CostLedger ledger() {
    return charger.ledger();
  }

  /** Checks that every dm_io completed once and no bio was left deferred or hung for polling. */
  public void audit(Books books) {
    books.held(pending, name + ": dm_ios never completed (md->pending_io)");
    books.drainedEqual(allocated, completed, name + ": dm_ios allocated vs completed");
    books.held(pollList.size(), name + ": dm_ios left on a polled bio's list");
    books.held(heldForSuspend.size(), name + ": bios left deferred by a suspend");
    books.held(
        deferred.values().stream().mapToInt(ArrayDeque::size).sum(),
        name + ": bios left on md->deferred");
  }
}

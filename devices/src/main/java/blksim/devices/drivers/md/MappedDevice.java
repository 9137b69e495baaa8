package blksim.devices.drivers.md;

import blksim.config.DmTable;
import blksim.queues.block.bio.Bio;
import blksim.queues.books.Books;
import blksim.queues.books.InvariantBroken;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Models {@code struct mapped_device} of a bio-based dm-linear device (drivers/md/dm.c, 5.18-5.19):
 * its live table, the dm_ios in flight, the list of polled dm_ios hung on each original ({@code
 * REQ_DM_POLL_LIST}), and the deferred list ({@code md->deferred}) that {@code md->wq} resubmits.
 * Each method is one function of dm.c; the actor calls them and sends what they decide.
 */
public final class MappedDevice {
  /** EAGAIN, {@code blk_status_to_errno(BLK_STS_AGAIN)}. */
  public static final int EAGAIN = 11;

  /** Why a bio was requeued. */
  public enum Requeue {
    /** A polled clone ended with {@code BLK_STS_AGAIN} (REQ_NOWAIT found no tag below). */
    POLLED_EAGAIN,
    /** A REQ_NOWAIT bio came while the device was suspended: {@code bio_wouldblock_error}. */
    SUSPENDED_NOWAIT,
    /** Any other bio came while the device was suspended: {@code queue_io}, until resume. */
    SUSPENDED_DEFERRED
  }

  private final String name;
  private final DmTable table;
  private final boolean supportsPoll;
  private final Map<Bio, DmIo> pollList = new IdentityHashMap<>();
  private final Map<Integer, ArrayDeque<Bio>> deferred = new java.util.TreeMap<>();
  private final Map<Requeue, Long> requeues = new EnumMap<>(Requeue.class);
  private final ArrayDeque<Bio> heldForSuspend = new ArrayDeque<>();
  private boolean suspended;
  private long pending;
  private long allocated;
  private long completed;
  private long resubmitted;

  /**
   * @param supportsPoll {@code dm_table_supports_poll}: every device under the table polls
   */
  public MappedDevice(String name, DmTable table, boolean supportsPoll) {
    this.name = name;
    this.table = table;
    this.supportsPoll = supportsPoll;
    for (Requeue r : Requeue.values()) {
      requeues.put(r, 0L);
    }
  }

  /**
   * {@code alloc_io} with its clone from {@code io_bs}, then {@code __map_bio} → {@code
   * linear_map}: the clone points at the target's device, at the target's offset plus the sector's
   * offset inside the target ({@code dm_target_offset}); {@code DM_MAPIO_REMAPPED}.
   *
   * @return the dm_io, whose clone is ready for {@code submit_bio_noacct}
   */
  public DmIo allocIoAndMap(Bio orig, Bio clone) {
    DmTable.Target t = findTarget(orig.sector());
    DmIo io = new DmIo(this, orig, clone);
    clone.setOwner(io);
    clone.setRange(t.offset() + (orig.sector() - t.start()), orig.sizeBytes());
    if (orig.polled()) {
      clone.setPolled();
    }
    pending++;
    allocated++;
    return io;
  }

  /** The target of the one of this table's devices that the clone of {@code io} goes to. */
  public DmTable.Target target(DmIo io) {
    return findTarget(io.orig().sector());
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
   * REQ_POLLED} and the per-CPU cache flag and is deferred; any other ends with the io's status.
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

  /** {@code dm_table_find_target}. */
  private DmTable.Target findTarget(long sector) {
    for (DmTable.Target t : table.targets()) {
      if (sector < t.end()) {
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

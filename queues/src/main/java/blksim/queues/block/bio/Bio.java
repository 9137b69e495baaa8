package blksim.queues.block.bio;

/**
 * Models {@code struct bio} (include/linux/blk_types.h): one I/O. Bios are recycled through their
 * bio_set (per-CPU cache or mempool), as in the kernel, so the books can count them.
 */
public final class Bio {
  /** {@code REQ_OP_READ}. */
  public static final int REQ_OP_READ = 0;

  /** {@code BLK_QC_T_NONE}: nothing to poll. */
  public static final int BLK_QC_T_NONE = -1;

  private final int id;
  private final BioSet pool;
  private boolean inUse;
  private boolean percpuCache;
  private boolean polled;
  private boolean nowait;
  private long sector;
  private int sizeBytes;
  private int status;
  private BioOwner owner;
  private int cookie = BLK_QC_T_NONE;

  Bio(int id, BioSet pool) {
    this.id = id;
    this.pool = pool;
  }

  /**
   * A bio on the stack of a task's sync read ({@code __blkdev_direct_IO_simple}): of no bio_set,
   * initialised; {@link #uninitOnStack} ends it.
   */
  public static Bio onStack(int id) {
    Bio bio = new Bio(id, null);
    bio.init(false);
    return bio;
  }

  /** Whether this is a sync read's bio on the stack ({@link #onStack}). */
  public boolean onStack() {
    return pool == null;
  }

  /** {@code bio_uninit} of a bio on the stack, when its sync read returns. */
  public void uninitOnStack() {
    if (pool != null) {
      throw new IllegalStateException("bio " + id + " belongs to a bio_set, not a stack");
    }
    uninit();
  }

  /** {@code bio_init} plus what {@code __blkdev_direct_IO_async} sets. */
  void init(boolean percpuCache) {
    this.inUse = true;
    this.percpuCache = percpuCache;
    this.polled = false;
    this.nowait = false;
    this.sector = 0;
    this.sizeBytes = 0;
    this.status = 0;
    this.owner = null;
    this.cookie = BLK_QC_T_NONE;
  }

  /** {@code bio_uninit} on the way back to the cache or slab. */
  void uninit() {
    this.inUse = false;
    this.owner = null;
  }

  public int id() {
    return id;
  }

  /** {@code bi_pool}. */
  public BioSet pool() {
    return pool;
  }

  public boolean inUse() {
    return inUse;
  }

  /** {@code BIO_PERCPU_CACHE}: the bio goes back to a per-CPU cache on its final put. */
  public boolean percpuCache() {
    return percpuCache;
  }

  /** {@code bio_clear_hipri}/{@code bio_clear_polled}: also clears {@code BIO_PERCPU_CACHE}. */
  public void clearPolled() {
    polled = false;
    percpuCache = false;
  }

  /** {@code REQ_POLLED} (REQ_HIPRI before 5.17). */
  public boolean polled() {
    return polled;
  }

  /** {@code bio_set_polled}. */
  public void setPolled() {
    polled = true;
  }

  /**
   * {@code REQ_NOWAIT}: io_uring's inline issue sets it ({@code IOCB_NOWAIT}); io-wq's blocking
   * issue does not.
   */
  public boolean nowait() {
    return nowait;
  }

  public void setNowait() {
    nowait = true;
  }

  /** {@code bi_iter.bi_sector}, in 512-byte sectors. */
  public long sector() {
    return sector;
  }

  /** {@code bi_iter.bi_size}, in bytes. */
  public int sizeBytes() {
    return sizeBytes;
  }

  public void setRange(long sector, int sizeBytes) {
    this.sector = sector;
    this.sizeBytes = sizeBytes;
  }

  /** {@code bi_status}: 0 or a negative errno. */
  public int status() {
    return status;
  }

  public void setStatus(int status) {
    this.status = status;
  }

  /**
   * Whom the bio completes: the request of raw block device I/O (the {@code dio->iocb} of the
   * {@code blkdev_dio} the bio is in), a sync read's waiting task or a clone's dm_io ({@code
   * bi_private}).
   */
  public BioOwner owner() {
    return owner;
  }

  public void setOwner(BioOwner owner) {
    this.owner = owner;
  }

  /**
   * {@code bi_cookie}: what {@code bio_poll} polls, set by the device at submission (a blk-mq
   * hardware queue's number), or {@link #BLK_QC_T_NONE}.
   */
  public int cookie() {
    return cookie;
  }

  public void setCookie(int cookie) {
    this.cookie = cookie;
  }
}

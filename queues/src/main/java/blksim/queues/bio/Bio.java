package blksim.queues.bio;

/**
 * Models {@code struct bio} (include/linux/blk_types.h): one I/O. Bios are recycled through their
 * bio_set (per-CPU cache or mempool), as in the kernel, so the books can count them.
 */
public final class Bio {
  /** {@code REQ_OP_READ}. */
  public static final int REQ_OP_READ = 0;

  private final int id;
  private final BioSet pool;
  private boolean inUse;
  private boolean percpuCache;
  private boolean polled;
  private long sector;
  private int sizeBytes;
  private int status;
  private Object bioPrivate;

  Bio(int id, BioSet pool) {
    this.id = id;
    this.pool = pool;
  }

  /** {@code bio_init} plus what {@code __blkdev_direct_IO_async} sets. */
  void init(boolean percpuCache) {
    this.inUse = true;
    this.percpuCache = percpuCache;
    this.polled = false;
    this.sector = 0;
    this.sizeBytes = 0;
    this.status = 0;
    this.bioPrivate = null;
  }

  /** {@code bio_uninit} on the way back to the cache or slab. */
  void uninit() {
    this.inUse = false;
    this.bioPrivate = null;
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

  /** {@code bi_private}: for raw block device I/O, the io_uring request. */
  public Object bioPrivate() {
    return bioPrivate;
  }

  public void setBioPrivate(Object p) {
    this.bioPrivate = p;
  }
}

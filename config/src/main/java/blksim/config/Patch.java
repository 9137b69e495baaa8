package blksim.config;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The seeds' patches, each a toggle of the modelled path (docs/seeds.md). */
public enum Patch {
  /**
   * "block: cache bdev in struct file for raw bdev IO" (Pavel Begunkov, seed 000 1/3; applied,
   * commit 82f652990a4a, 5.16): {@code file->private_data} instead of {@code
   * I_BDEV(file->f_mapping->host)}.
   */
  BDEV_CACHE_IN_FILE("bdev-cache-in-file"),
  /**
   * "block: don't hide inode from block_device users" (seed 000 2/3; not applied upstream): the
   * inode inside {@code struct block_device}, {@code I_BDEV} inline, no {@code bd_inode} pointer.
   */
  BDEV_INODE_INLINE("bdev-inode-inline"),
  /**
   * "blk-mq: optimise *end_request non-stat path" (seed 000 3/3; applied, commit e945e2edb670,
   * 5.16): the statistics block of {@code __blk_mq_end_request} only under {@code
   * blk_mq_need_time_stamp()}.
   */
  END_REQUEST_FAST_PATH("end-request-fast-path"),
  /**
   * "block: Optimize bio_init()" (Bart Van Assche, seed 003): one compound-literal assignment,
   * which gcc turns into {@code rep stosq} of 16 qwords, instead of field-by-field stores.
   */
  BIO_INIT_COMPOUND("bio-init-compound"),
  /**
   * "implement pcpu bio caching for IRQ I/O" (Pavel Begunkov, v4 2022-11-02, applied for 6.2):
   * io_uring asks for the per-CPU bio cache on every read, not only on IOPOLL rings, and a bio put
   * from interrupt context (or not polled) goes to a second, IRQ-safe list ({@code free_list_irq})
   * that allocation takes over once it holds {@code ALLOC_CACHE_THRESHOLD}; the cache holds at most
   * {@code ALLOC_CACHE_MAX} (256) in all.
   */
  BIO_CACHE_IRQ_LIST("bio-cache-irq-list"),
  /**
   * "block: allow BIOSET_PERCPU_CACHE use from bio_alloc_clone" (Mike Snitzer, seed 002 1/3, 5.19):
   * {@code bio_alloc_clone} takes a REQ_POLLED bio's clone from the bio_set's per-CPU cache when it
   * has one ({@code bio_alloc_percpu_cache}), and marks it to go back there.
   */
  DM_CLONE_PERCPU_CACHE("dm-clone-percpu-cache"),
  /**
   * "dm: enable BIOSET_PERCPU_CACHE for dm_io bioset" (seed 002 2/3): each DM device's {@code
   * io_bs} is created with a per-CPU cache.
   */
  DM_IO_BIOSET_PERCPU_CACHE("dm-io-bioset-percpu-cache"),
  /**
   * "dm: conditionally enable BIOSET_PERCPU_CACHE for bio-based dm_io bioset" (seed 002 3/3): the
   * cache of 2/3 only for a bio-based table that supports polling ({@code dm_table_supports_poll}).
   */
  DM_PERCPU_CACHE_ONLY_IF_POLL("dm-percpu-cache-only-if-poll");

  private final String key;

  Patch(String key) {
    this.key = key;
  }

  /** The name used on the command line and in HOCON. */
  public String key() {
    return key;
  }

  /**
   * The patch named {@code key}.
   *
   * @throws ConfigError naming the accepted names
   */
  public static Patch of(String key) {
    for (Patch p : values()) {
      if (p.key.equals(key)) {
        return p;
      }
    }
    throw new ConfigError("unknown patch " + key + ": accepted " + names());
  }

  public static String names() {
    return Arrays.stream(values()).map(Patch::key).collect(Collectors.joining(", "));
  }
}

package blksim.config;

/**
 * The bio_set of raw block device I/O and its per-CPU cache (block/bio.c, 5.16-5.18).
 *
 * @param percpuCache BIOSET_PERCPU_CACHE on the bioset
 * @param allocCacheMax ALLOC_CACHE_MAX
 * @param allocCacheSlack ALLOC_CACHE_SLACK
 * @param bioInlineVecs BIO_INLINE_VECS
 * @param poolSize BIO_POOL_SIZE, the mempool reserve
 * @param slabObjects bios a SLUB slab of the bioset holds
 */
public record BioSetSettings(
    boolean percpuCache,
    int allocCacheMax,
    int allocCacheSlack,
    int bioInlineVecs,
    int poolSize,
    int slabObjects) {

  static BioSetSettings from(SettingsReader r) {
    String p = "blksim.bioset.";
    return new BioSetSettings(
        r.bool(p + "percpu-cache"),
        r.intIn(p + "alloc-cache-max", 0, 1 << 20),
        r.intIn(p + "alloc-cache-slack", 1, 1 << 20),
        r.intIn(p + "bio-inline-vecs", 1, 256),
        r.intIn(p + "pool-size", 0, 1 << 20),
        r.intIn(p + "slab-objects", 1, 1 << 16));
  }
}

package blksim.config;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The kernel the path is modelled on: a named preset and the patches applied on top of it, plus the
 * request queue's attributes that the seeds' runs depend on.
 *
 * @param preset the preset named by {@code --kernel}, or empty
 * @param patches every built-in patch in effect, the preset's included
 * @param priced the patches in effect that are priced by data ({@link PatchData}): the built-in
 *     ones of {@code patches} that are, in their order, then the user's, by name
 * @param iostats {@code /sys/block/<dev>/queue/iostats}: I/O accounting, {@code ktime_get_ns} at
 *     the start and end of each request (QUEUE_FLAG_IO_STAT, on by default)
 * @param nomerges {@code /sys/block/<dev>/queue/nomerges}: 0 every merge, 1 no extended merges
 *     (QUEUE_FLAG_NOXMERGES: the plug's one-hit merge stays), 2 none (QUEUE_FLAG_NOMERGES)
 * @param scheduler {@code /sys/block/<dev>/queue/scheduler}: "" for the kernel's default ({@code
 *     elevator_get_default}), or the one written there
 * @param nrRequests {@code /sys/block/<dev>/queue/nr_requests} as written there, or 0 for the
 *     kernel's ({@link Elevator#nrRequests})
 */
public record KernelSettings(
    String preset,
    Set<Patch> patches,
    List<PatchData> priced,
    Map<String, PatchData> library,
    boolean iostats,
    int nomerges,
    String scheduler,
    int nrRequests) {

  /** The I/O schedulers a queue may be given ({@code elv_list} of a 5.16-6.1 kernel). */
  public static final Set<String> SCHEDULERS = Set.of("none", "mq-deadline", "kyber", "bfq");

  /** The I/O schedulers of {@link #SCHEDULERS} that the model runs; the others are refused. */
  public static final Set<String> MODELLED_SCHEDULERS = Set.of("none", "mq-deadline");

  /** What 5.16 changed on the path, as modelled: seed 000's two applied patches and the rest. */
  private static final Set<Patch> V5_16 =
      EnumSet.of(
          Patch.BDEV_CACHE_IN_FILE,
          Patch.END_REQUEST_FAST_PATH,
          Patch.PLUG_BATCH_ALLOC,
          Patch.RSRC_REF_CACHE,
          Patch.RSRC_NODE_CTX,
          Patch.DRIVER_TAG_INLINE,
          Patch.BIO_TRACKED_RQ_QOS,
          Patch.BIO_IOV_BVEC_SET,
          Patch.BIO_ADVANCE_SKIP,
          Patch.UPDATE_REQUEST_IN_BLK_MQ,
          Patch.STATUS_ERRNO_SKIP,
          Patch.RQF_ELV,
          Patch.RQ_CTX_INIT_NO_ELV,
          Patch.REMOVE_CTX_COUNTERS,
          Patch.REMOVE_HCTX_COUNTERS,
          Patch.QUEUE_ENTER_RCU_ONCE,
          Patch.BDEV_CACHED_QUEUE,
          Patch.BLKDEV_DIO_FLAGS,
          Patch.RQ_LAYOUT);

  private static final Set<Patch> V5_17 = with(V5_16, Patch.NULL_POLL_BATCH);

  private static final Set<Patch> V5_19 =
      with(
          V5_17,
          Patch.DM_CLONE_PERCPU_CACHE,
          Patch.DM_IO_BIOSET_PERCPU_CACHE,
          Patch.DM_PERCPU_CACHE_ONLY_IF_POLL);

  /** Kernels by name: the patches and features that each has (docs/kernel.md section 8). */
  public static final Map<String, Set<Patch>> PRESETS =
      Map.of(
          "5.15", EnumSet.noneOf(Patch.class),
          "5.16", V5_16,
          "5.17", V5_17,
          "5.18", V5_17,
          "5.19", V5_19,
          "6.1", V5_19);

  /** The kernel's schedulers that blksim does not model, by name. */
  private static Set<String> notModelled() {
    Set<String> out = new TreeSet<>(SCHEDULERS);
    out.removeAll(MODELLED_SCHEDULERS);
    return out;
  }

  private static Set<Patch> with(Set<Patch> base, Patch... more) {
    EnumSet<Patch> s = EnumSet.copyOf(base);
    s.addAll(java.util.Arrays.asList(more));
    return s;
  }

  /**
   * Kernels whose null_blk has no poll queues: {@code poll_queues} and {@code null_poll} came in
   * 5.16 (commit 0a593fbbc245, "null_blk: poll queue support"; docs/kernel.md).
   */
  private static final Set<String> NO_NULL_BLK_POLL = Set.of("5.15");

  /**
   * Kernels without IORING_REGISTER_RING_FDS (5.18): t/io_uring's registration fails there and it
   * goes on with {@code register_ring = 0}, paying fdget/fdput on every io_uring_enter.
   */
  private static final Set<String> NO_RING_FDS = Set.of("5.15", "5.16", "5.17");

  /** Kernels without device-mapper bio polling ({@code dm_poll_bio} came in 5.18). */
  private static final Set<String> NO_DM_POLL = Set.of("5.15", "5.16", "5.17");

  /**
   * With the kernel's default, every merge; the built-in patches priced by data as {@code
   * reference.conf} describes them.
   */
  public KernelSettings(String preset, Set<Patch> patches, boolean iostats) {
    this(preset, patches, builtInData(patches), builtInLibrary(), iostats, 0, "", 0);
  }

  public KernelSettings {
    patches = patches.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(patches));
    priced = List.copyOf(priced);
    library = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(library));
  }

  /** The built-in patches described as data, by name. */
  private static Map<String, PatchData> builtInLibrary() {
    Map<String, PatchData> out = new java.util.TreeMap<>();
    for (PatchData d : builtInData(EnumSet.allOf(Patch.class))) {
      out.put(d.name(), d);
    }
    return out;
  }

  /** The data of the built-in patches of {@code patches} that are priced by it, in their order. */
  private static List<PatchData> builtInData(Set<Patch> patches) {
    SettingsReader r = new SettingsReader(com.typesafe.config.ConfigFactory.defaultReference());
    List<PatchData> out = new ArrayList<>();
    for (Patch p : patches.isEmpty() ? EnumSet.noneOf(Patch.class) : EnumSet.copyOf(patches)) {
      if (p.pricedByData()) {
        out.add(PatchData.from(r, p.key()));
      }
    }
    return out;
  }

  /** The names of the patches in effect: the built-in ones in their order, then the user's. */
  public List<String> names() {
    List<String> out = new ArrayList<>();
    for (Patch p : patches.isEmpty() ? EnumSet.noneOf(Patch.class) : EnumSet.copyOf(patches)) {
      out.add(p.key());
    }
    for (PatchData d : priced) {
      if (Patch.find(d.name()) == null) {
        out.add(d.name());
      }
    }
    return out;
  }

  /**
   * Whether functions carry the names of 5.16 and later (a preset from 5.16): {@code
   * iocb_bio_iopoll}, {@code __blkdev_direct_IO_async}, {@code io_free_batch_list}.
   */
  public boolean names516() {
    return !preset.isEmpty() && !preset.equals("5.15");
  }

  public boolean has(Patch p) {
    return patches.contains(p);
  }

  /**
   * Whether a bio-based DM disk can be polled ({@code dm_poll_bio}, "dm: support bio polling",
   * 5.18): not on the 5.15 to 5.17 presets; the default path has it.
   */
  public boolean dmPoll() {
    return !NO_DM_POLL.contains(preset);
  }

  /** Whether {@code -X1} can register the ring's fd (IORING_REGISTER_RING_FDS, 5.18). */
  public boolean registerRingFds() {
    return !NO_RING_FDS.contains(preset);
  }

  /**
   * Whether null_blk has poll queues: not on the 5.15 preset, whose module ignores a {@code
   * poll_queues=} parameter it does not know, so that a polled bio there ends by interrupt.
   */
  public boolean nullBlkPoll() {
    return !NO_NULL_BLK_POLL.contains(preset);
  }

  /**
   * The patches that {@code blksim.patches} defines, checked: a built-in patch priced by code has
   * no data there.
   */
  private static Set<String> defined(SettingsReader r) {
    Set<String> out = new TreeSet<>();
    if (!r.config().hasPath("blksim.patches")) {
      return out;
    }
    for (String key : r.config().getObject("blksim.patches").keySet()) {
      Patch p = Patch.find(key);
      if (p != null && !p.pricedByData()) {
        throw new ConfigError(
            "blksim.patches."
                + key
                + ": "
                + key
                + " is a built-in patch that the model's code prices (it changes what the path"
                + " does, not only its price): give your patch another name");
      }
      out.add(key);
    }
    return out;
  }

  private static String unknown(String key, Set<String> defined) {
    Set<String> own = new TreeSet<>(defined);
    for (Patch p : Patch.values()) {
      own.remove(p.key());
    }
    return "unknown patch "
        + OneLine.of(key)
        + ": accepted "
        + Patch.names()
        + (own.isEmpty()
            ? ", or a patch of your own (blksim.patches.NAME, --patch-file FILE)"
            : ", and blksim.patches' " + String.join(", ", own));
  }

  static KernelSettings from(SettingsReader r) {
    String preset = r.string("blksim.kernel.preset");
    EnumSet<Patch> patches = EnumSet.noneOf(Patch.class);
    if (!preset.isEmpty()) {
      Set<Patch> p = PRESETS.get(preset);
      if (p == null) {
        throw new ConfigError(
            "blksim.kernel.preset = "
                + preset
                + " is not a kernel blksim knows: accepted "
                + String.join(", ", new java.util.TreeSet<>(PRESETS.keySet())));
      }
      patches.addAll(p);
    }
    Set<String> own = new TreeSet<>();
    Set<String> defined = defined(r);
    for (String name : r.strings("blksim.kernel.patches")) {
      String n = name.trim();
      // no-NAME: the preset without that one change, so that its effect can be isolated
      boolean off = n.startsWith("no-");
      String key = off ? n.substring(3) : n;
      Patch p = Patch.find(key);
      if (p == null && !defined.contains(key)) {
        throw new ConfigError(unknown(key, defined));
      }
      if (p != null && off) {
        patches.remove(p);
      } else if (p != null) {
        patches.add(p);
      } else if (off) {
        own.remove(key);
      } else {
        own.add(key);
      }
    }
    Map<String, PatchData> library = new java.util.TreeMap<>();
    for (String key : defined) {
      library.put(key, PatchData.from(r, key));
    }
    List<PatchData> priced = new ArrayList<>();
    for (Patch p : patches) {
      if (p.pricedByData()) {
        PatchData d = library.get(p.key());
        if (d == null) {
          throw new IllegalStateException("reference.conf has no blksim.patches." + p.key());
        }
        priced.add(d);
      }
    }
    for (String key : own) {
      priced.add(library.get(key));
    }
    for (PatchData d : library.values()) {
      for (String other : d.with().keySet()) {
        if (Patch.find(other) == null && !defined.contains(other)) {
          throw new ConfigError(
              "blksim.patches."
                  + d.name()
                  + ".with."
                  + OneLine.of(other)
                  + ": "
                  + unknown(other, defined));
        }
      }
    }
    String scheduler = r.string("blksim.queue.scheduler");
    if (!scheduler.isEmpty() && !SCHEDULERS.contains(scheduler)) {
      throw new ConfigError(
          "blksim.queue.scheduler = "
              + scheduler
              + " is not an I/O scheduler: accepted \"\" (the kernel's default), "
              + String.join(", ", new java.util.TreeSet<>(MODELLED_SCHEDULERS))
              + " ("
              + String.join(" and ", notModelled())
              + " are the kernel's too, not modelled yet)");
    }
    return new KernelSettings(
        preset,
        patches,
        priced,
        library,
        r.flag("blksim.queue.iostats"),
        r.intIn("blksim.queue.nomerges", 0, 2),
        scheduler,
        r.intIn("blksim.queue.nr-requests", 0, Integer.MAX_VALUE));
  }
}

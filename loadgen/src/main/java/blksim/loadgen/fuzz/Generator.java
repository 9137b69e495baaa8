package blksim.loadgen.fuzz;

import blksim.config.Patch;
import blksim.config.WorkUnit;
import blksim.loadgen.fuzz.Case.Opt;
import blksim.queues.cost.KernelFn;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * Generates whole scenarios: a machine, threads and their placement, devices and files, null_blk's
 * module parameters, every t/io_uring flag blksim accepts, patches, profiles, kernels and the
 * queue's knobs, weighted toward the edges where models break: one tag, depth 1, more in flight
 * than tags, batches larger than the depth, one CPU under many queues, slow devices with polling.
 *
 * <p>Case {@code i} of seed {@code s} depends on nothing else, so a failure names its case and a
 * long run can be cut into pieces. Every new option, mode or device joins this class in the change
 * that adds it.
 */
public final class Generator {
  /** The CPU profiles of reference.conf. */
  static final List<String> PROFILES = List.of("begunkov-2021", "xeon-gold-6154", "zen2-3970x");

  /** The named kernels of {@code --kernel}. */
  static final List<String> KERNELS = List.of("5.15", "5.16", "5.17");

  /** The name of a case's own patch, described as data. */
  static final String OWN_PATCH = "fz";

  /** The most CPUs a generated machine has. */
  static final int MAX_CPUS = 64;

  /**
   * The virtual time a case may spend, summed over its threads: short runs that still hold hundreds
   * of I/Os per thread on the fast paths, so that a thousand cases fit in a CI minute.
   */
  static final long BUDGET_NS = 2_000_000;

  private final long seed;
  private final List<String> sets;

  /**
   * @param seed the root seed: case {@code i} is a function of it and {@code i}
   */
  public Generator(long seed) {
    this(seed, List.of());
  }

  /**
   * @param seed the root seed: case {@code i} is a function of it and {@code i}
   * @param sets {@code path=value} settings added to every case and kept by the shrinker
   */
  public Generator(long seed, List<String> sets) {
    this.seed = seed;
    this.sets = List.copyOf(sets);
  }

  /** Case number {@code index}. */
  public Case generate(long index) {
    RandomGenerator r =
        RandomGeneratorFactory.of("L64X128MixRandom")
            .create(seed * 0x9E3779B97F4A7C15L + index * 0xBF58476D1CE4E5B9L + 1);
    Case c = new Draw(r).build();
    for (String s : sets) {
      int eq = s.indexOf('=');
      c = c.pin("set:" + s.substring(0, eq).trim(), s.substring(eq + 1).trim());
    }
    return c;
  }

  /** The drawing of one case. */
  private static final class Draw {
    private final RandomGenerator r;
    private final List<Opt> opts = new ArrayList<>();

    /** Whether this case reads device-mapper devices (drawn first: it decides what else may be). */
    private boolean dm;

    Draw(RandomGenerator r) {
      this.r = r;
    }

    Case build() {
      int cpus =
          switch (weighted(new int[] {15, 25, 35, 15, 10})) {
            case 0 -> 1;
            case 1 -> 2;
            case 2 -> between(3, 8);
            case 3 -> between(9, 16);
            default -> between(17, MAX_CPUS);
          };
      int threads =
          switch (weighted(new int[] {50, 35, 10, 5})) {
            case 0 -> 1;
            case 1 -> between(1, Math.max(1, Math.min(cpus, 8)));
            case 2 -> cpus;
            default -> cpus + 1;
          };
      threads = Math.max(1, threads);
      dm = r.nextInt(100) < 20;
      if (r.nextInt(100) < 90) {
        opts.add(new Opt("--cpus", String.valueOf(cpus)));
      }
      if (threads > 1 || r.nextInt(100) < 10) {
        opts.add(new Opt("-n", String.valueOf(threads)));
      }
      if (r.nextInt(100) < 15) {
        opts.add(new Opt("--taskset", taskset(cpus, threads)));
      }
      int tags = nullBlk(cpus);
      ioUring(tags);
      kernel();
      knobs();
      long runtimeUs = runtimeUs(threads);
      opts.add(new Opt(Case.RUNTIME, runtimeUs + "us"));
      List<String> files = files();
      if (dm && r.nextInt(100) < 25) {
        // dmsetup suspend --noflush and resume in the run, mostly over before it ends.
        long at = Math.max(1, runtimeUs / 4);
        long span = r.nextInt(100) < 90 ? Math.max(1, runtimeUs / 4) : runtimeUs;
        opts.add(new Opt("set:dm.suspend", "[\"dm-0 at " + at + "us for " + span + "us\"]"));
      }
      if (r.nextInt(100) < 8) {
        shareCpus(tags);
      }
      return new Case(opts, files);
    }

    /**
     * Threads that take turns on fewer CPUs than they are, at depths their queues' tags hold (else
     * an io-wq worker would be needed beside them, which is refused): {@code --cpus} below {@code
     * -n}, or a {@code --taskset} that names a CPU twice.
     */
    private void shareCpus(int tags) {
      opts.removeIf(o -> List.of("--cpus", "-n", "--taskset", "-d", "-s", "-c").contains(o.name()));
      int threads = between(2, 4);
      int depth = Math.max(1, Math.min(between(1, 64), tags / threads));
      if (r.nextBoolean()) {
        opts.add(new Opt("--cpus", String.valueOf(between(1, threads - 1))));
      } else {
        int cpus = between(2, 4);
        opts.add(new Opt("--cpus", String.valueOf(cpus)));
        List<String> on = new ArrayList<>();
        int shared = r.nextInt(cpus);
        for (int t = 0; t < threads; t++) {
          on.add(String.valueOf(t < 2 ? shared : r.nextInt(cpus)));
        }
        opts.add(new Opt("--taskset", String.join(",", on)));
      }
      opts.add(new Opt("-n", String.valueOf(threads)));
      opts.add(new Opt("-d", String.valueOf(depth)));
      opts.add(new Opt("-s", String.valueOf(batch(depth))));
      opts.add(new Opt("-c", String.valueOf(batch(depth))));
    }

    /** null_blk's module parameters; returns the tags per hctx, for the depth's edges. */
    private int nullBlk(int cpus) {
      if (r.nextInt(100) < 40) {
        opts.add(new Opt("nb:submit_queues", String.valueOf(queues(cpus, 1))));
      }
      if (r.nextInt(100) < 40) {
        opts.add(new Opt("nb:poll_queues", String.valueOf(queues(cpus, 0))));
      }
      int tags = 64;
      if (r.nextInt(100) < 50) {
        tags = pick(1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 1023);
        opts.add(new Opt("nb:hw_queue_depth", String.valueOf(tags)));
      }
      int irqmode = -1;
      if (r.nextInt(100) < 40) {
        // Timers weigh double: the slow device is where polling, sleeping and Little's law meet.
        irqmode = weighted(new int[] {25, 25, 50});
        opts.add(new Opt("nb:irqmode", String.valueOf(irqmode)));
      }
      if (r.nextInt(100) < (irqmode == 2 ? 80 : 10)) {
        opts.add(
            new Opt(
                "nb:completion_nsec", String.valueOf(pick(0, 1, 100, 1000, 5000, 10000, 50000))));
      }
      if (r.nextInt(100) < 10) {
        opts.add(new Opt("nb:no_sched", String.valueOf(r.nextInt(2))));
      }
      if (r.nextInt(100) < 10) {
        opts.add(new Opt("nb:bs", String.valueOf(pick(512, 4096))));
      }
      if (r.nextInt(100) < 5) {
        opts.add(new Opt("nb:queue_mode", String.valueOf(pick(0, 1, 2))));
      }
      if (r.nextInt(100) < 5) {
        opts.add(new Opt("nb:home_node", String.valueOf(pick(-1, 0))));
      }
      if (r.nextInt(100) < 5) {
        opts.add(new Opt("nb:gb", String.valueOf(pick(1, 16, 250))));
      }
      if (r.nextInt(100) < 8) {
        // Fault injection: a share, a fixed number, every n-th, after a space; now and then a
        // string the module refuses, or one that would turn every dispatch away.
        String[] faults = {
          "1,10,0,-1", "1,50,0,-1", "1,100,0,5", "3,100,0,-1", "2,30,100,-1", "1,10", "1,100,0,-1"
        };
        opts.add(new Opt("nb:requeue", faults[r.nextInt(faults.length)]));
      }
      if (r.nextInt(100) < 4) {
        opts.add(new Opt("nb:timeout", r.nextBoolean() ? "1,10,0,-1" : "1,100,20,1"));
        if (r.nextBoolean()) {
          opts.add(new Opt("set:queue.io-timeout", pick(5, 20, 100) + "us"));
        }
      }
      return tags;
    }

    /**
     * A queue count: mostly within the CPUs, now and then more than there are (null_blk clamps).
     */
    private int queues(int cpus, int min) {
      return switch (weighted(new int[] {30, 55, 15})) {
        case 0 -> min;
        case 1 -> between(Math.max(1, min), cpus);
        default -> cpus + between(1, 4);
      };
    }

    /** t/io_uring's flags, with the depth and batches on the edges of the tag count. */
    private void ioUring(int tags) {
      int depth = 128;
      if (r.nextInt(100) < 85) {
        depth =
            weighted(new int[] {60, 40}) == 0
                ? pick(1, 2, 3, 4, 8, 16, 31, 32, 33, 64, 65, 127, 128, 256, 1024)
                : Math.max(1, tags + between(-1, 1));
        opts.add(new Opt("-d", String.valueOf(depth)));
      }
      if (r.nextInt(100) < 60) {
        opts.add(new Opt("-s", String.valueOf(batch(depth))));
      }
      if (r.nextInt(100) < 60) {
        opts.add(new Opt("-c", String.valueOf(batch(depth))));
      }
      if (r.nextInt(100) < 40) {
        opts.add(
            new Opt("-b", String.valueOf(pick(512, 512, 1024, 4096, 4096, 8192, 65536, 1000))));
      }
      flag("-p", 60, r.nextInt(100) < 70 ? 1 : 0);
      flag("-B", 25, r.nextInt(2));
      flag("-F", 25, r.nextInt(2));
      flag("-O", 10, r.nextInt(2));
      flag("-R", 15, r.nextInt(2));
      flag("-X", 15, r.nextInt(2));
      flag("-t", 10, r.nextInt(2));
      // -N1: nops, which run on any device and setup; -S1: preadv2, one read at a time; -a1: aio
      flag("-N", 8, 1);
      flag("-S", 8, 1);
      flag("-a", 8, 1);
      for (String rare : List.of("-u", "-V", "-e", "-P")) {
        flag(rare, 3, 1);
      }
    }

    /** A batch size: 0, 1, the depth, one more than the depth, or twice it. */
    private int batch(int depth) {
      return switch (r.nextInt(6)) {
        case 0 -> 0;
        case 1 -> 1;
        case 2 -> depth;
        case 3 -> depth + 1;
        case 4 -> 2 * depth;
        default -> between(1, depth);
      };
    }

    private void kernel() {
      Set<String> patches = new LinkedHashSet<>();
      for (Patch p : Patch.values()) {
        if (DmTables.PATCHES.contains(p) && !dm) {
          continue;
        }
        int roll = r.nextInt(100);
        if (roll < (DmTables.PATCHES.contains(p) ? 40 : 20)) {
          patches.add(p.key());
        } else if (roll >= 95) {
          // no-NAME: a preset without one of its changes (nothing, without a preset that has it)
          patches.add("no-" + p.key());
        }
      }
      if (r.nextInt(100) < 12) {
        ownPatch();
        patches.add(OWN_PATCH);
      }
      if (!patches.isEmpty()) {
        opts.add(new Opt("--patch", String.join(",", patches)));
      }
      if (r.nextInt(100) < 20) {
        List<String> kernels = dm ? DmTables.KERNELS : KERNELS;
        opts.add(new Opt("--kernel", kernels.get(r.nextInt(kernels.size()))));
      }
      if (r.nextInt(100) < 30) {
        List<String> profiles = dm ? DmTables.PROFILES : PROFILES;
        opts.add(new Opt("--profile", profiles.get(r.nextInt(profiles.size()))));
      }
    }

    /**
     * A patch of the case's own, described as data through {@code --set}
     * (patches.fz.changes.FUNCTION.UNIT=count, docs/your-patch.md): one to three changes of the
     * path's functions, and sometimes a function it adds. A count that takes more work from a
     * function than it has is refused in one line, as it should be.
     */
    private void ownPatch() {
      int changes = between(1, 3);
      for (int i = 0; i < changes; i++) {
        String at = "set:patches." + OWN_PATCH + ".changes." + function() + "." + unit();
        opts.removeIf(o -> o.name().equals(at));
        opts.add(new Opt(at, String.valueOf(pick(-1, 1, 1, 2, 3))));
      }
      if (r.nextInt(100) < 40) {
        String at = "set:patches." + OWN_PATCH + ".adds." + OWN_PATCH + "_added.";
        opts.add(new Opt(at + "called-from", function()));
        if (r.nextBoolean()) {
          opts.add(new Opt(at + "per-call", String.valueOf(between(1, 3))));
        }
        opts.add(new Opt(at + unit(), String.valueOf(between(1, 4))));
      }
    }

    /** A function of the path, by a name the command line takes as it is. */
    private String function() {
      while (true) {
        KernelFn fn = KernelFn.values()[r.nextInt(KernelFn.values().length)];
        if (fn.symbol().matches("[A-Za-z0-9_]+")) {
          return fn.symbol();
        }
      }
    }

    private String unit() {
      return WorkUnit.values()[r.nextInt(WorkUnit.values().length)].key();
    }

    /** With {@code pct} % odds, option {@code name} with a value drawn only then. */
    private void maybe(int pct, String name, java.util.function.Supplier<String> value) {
      if (r.nextInt(100) < pct) {
        opts.add(new Opt(name, value.get()));
      }
    }

    /** The queue's sysfs keys, the bio set's knobs, the scheduler tick, the seed. */
    private void knobs() {
      maybe(15, "set:queue.iostats", () -> String.valueOf(r.nextBoolean()));
      maybe(25, "set:queue.nomerges", () -> String.valueOf(r.nextInt(3)));
      if (r.nextInt(100) < 8) {
        boolean dd = r.nextBoolean();
        opts.add(new Opt("set:queue.scheduler", dd ? "mq-deadline" : "none"));
        if (dd && r.nextInt(4) > 0) {
          // mostly where mq-deadline runs: one hardware queue (else a one-line refusal)
          opts.removeIf(
              o -> o.name().equals("nb:submit_queues") || o.name().equals("nb:poll_queues"));
          opts.add(new Opt("nb:poll_queues", "0"));
        }
      }
      maybe(6, "set:queue.nr-requests", () -> String.valueOf(pick(0, 2, 16, 32, 64, 256, 4096)));
      maybe(15, "set:bioset.percpu-cache", () -> String.valueOf(r.nextBoolean()));
      maybe(5, "set:bioset.alloc-cache-max", () -> String.valueOf(pick(1, 4, 16, 512)));
      maybe(5, "set:bioset.pool-size", () -> String.valueOf(pick(1, 2, 8)));
      InterferenceDraw.add(r, opts);
      if (r.nextInt(100) < 10) {
        opts.add(new Opt("--seed", String.valueOf(r.nextInt(1000))));
      }
    }

    /** Virtual time: a share of the budget per thread, from 10 us to 1 ms. */
    private long runtimeUs(int threads) {
      long us = pick(10, 50, 100, 200, 500, 1000);
      return Math.max(10, Math.min(us, BUDGET_NS / 1000 / threads));
    }

    /**
     * A taskset list for the threads: distinct CPUs mostly, a shared or absent one now and then.
     */
    private String taskset(int cpus, int threads) {
      List<Integer> all = new ArrayList<>();
      for (int c = 0; c < cpus; c++) {
        all.add(c);
      }
      List<String> chosen = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int c;
        if (r.nextInt(100) < 5) {
          c = r.nextBoolean() ? cpus : (chosen.isEmpty() ? 0 : Integer.parseInt(chosen.get(0)));
        } else if (!all.isEmpty()) {
          c = all.remove(r.nextInt(all.size()));
        } else {
          c = r.nextInt(cpus);
        }
        chosen.add(String.valueOf(c));
      }
      return String.join(",", chosen);
    }

    /** One to four files on one to four null_blk devices, a missing device now and then. */
    private List<String> files() {
      int devices = weighted(new int[] {70, 30}) == 0 ? 1 : between(2, 4);
      if (devices > 1) {
        opts.add(new Opt("nb:nr_devices", String.valueOf(devices)));
      }
      if (dm) {
        return dmFiles(devices);
      }
      int n = weighted(new int[] {70, 30}) == 0 ? 1 : between(2, 4);
      List<String> files = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int dev = r.nextInt(100) < 3 ? devices : r.nextInt(devices);
        files.add("/dev/nullb" + dev);
      }
      return files;
    }

    /**
     * One or two dm-linear devices, each over a null_blk device of its own, and files on them: the
     * identity of the first GiB, or its halves swapped, or three targets; a bad table line, or a
     * file on the device under a DM device, now and then.
     */
    private List<String> dmFiles(int devices) {
      int nrDm = devices > 1 && r.nextInt(100) < 25 ? 2 : 1;
      for (int d = 0; d < nrDm; d++) {
        String dev = "/dev/nullb" + d;
        int kind = weighted(new int[] {50, 25, 15, 10});
        String table = kind < 3 ? DmTables.good(kind, dev) : DmTables.bad(r.nextInt(8), dev);
        opts.add(new Opt("dm:" + d, table));
      }
      int n = weighted(new int[] {75, 25}) == 0 ? 1 : between(2, 3);
      List<String> files = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int x = r.nextInt(100);
        files.add(x < 3 ? "/dev/dm-" + nrDm : x < 6 ? "/dev/nullb0" : "/dev/dm-" + r.nextInt(nrDm));
      }
      return files;
    }

    private void flag(String name, int percent, int value) {
      if (r.nextInt(100) < percent) {
        opts.add(new Opt(name, String.valueOf(value)));
      }
    }

    private int between(int lo, int hi) {
      return hi <= lo ? lo : lo + r.nextInt(hi - lo + 1);
    }

    private int pick(int... values) {
      return values[r.nextInt(values.length)];
    }

    private int weighted(int[] weights) {
      int total = 0;
      for (int w : weights) {
        total += w;
      }
      int x = r.nextInt(total);
      for (int i = 0; i < weights.length; i++) {
        x -= weights[i];
        if (x < 0) {
          return i;
        }
      }
      return weights.length - 1;
    }
  }
}

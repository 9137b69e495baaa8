package blksim.loadgen.bad;

import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * The plausible half of the generated inputs: what a pasted command line, a hand-written scenario
 * or a table copied from a mail would hold when nothing is wrong with it, and the way {@link
 * BadInputs}' one fault is put into it.
 */
final class GoodInputs {
  private GoodInputs() {}

  /** Valid t/io_uring flags, the kind a pasted command line has. */
  static Arbitrary<List<String>> goodIoUringFlag() {
    return Arbitraries.oneOf(
        Arbitraries.of(1, 2, 4, 8, 16, 32, 64, 128).map(d -> List.of("-d" + d)),
        Arbitraries.integers().between(0, 32).map(n -> List.of("-s" + n)),
        Arbitraries.integers().between(0, 32).map(n -> List.of("-c" + n)),
        Arbitraries.of("512", "4096", "65536").map(b -> List.of("-b", b)),
        Arbitraries.of("-p", "-B", "-F", "-X", "-R", "-t", "-O")
            .flatMap(f -> Arbitraries.of(0, 1).map(v -> List.of(f + v))),
        Arbitraries.of(1, 2).map(n -> List.of("-n" + n)));
  }

  /** Valid run options. */
  static Arbitrary<List<String>> goodRunOption() {
    return Arbitraries.oneOf(
        Combinators.combine(
                Arbitraries.integers().between(1, 4), Arbitraries.integers().between(0, 4))
            .as((s, p) -> List.of("--null-blk", "submit_queues=" + s + " poll_queues=" + p)),
        Arbitraries.of(
                "irqmode=0",
                "irqmode=2 completion_nsec=5000",
                "hw_queue_depth=128",
                "bs=4096",
                "requeue=1,10,0,-1",
                "timeout=100,1,0,1",
                "no_sched=1")
            .map(p -> List.of("--null-blk", p)),
        Arbitraries.integers().between(2, 6).map(n -> List.of("--cpus", "" + n)),
        Arbitraries.of("5.15", "5.16", "5.18", "5.19").map(k -> List.of("--kernel", k)),
        Arbitraries.of(
                "bdev-cache-in-file",
                "bio-init-compound",
                "end-request-fast-path",
                "bio-cache-irq-list",
                "dm-clone-percpu-cache")
            .map(p -> List.of("--patch", p)),
        Arbitraries.of("begunkov-2021", "xeon-gold-6154", "zen2-3970x", "snitzer-2022")
            .map(p -> List.of("--profile", p)),
        Arbitraries.longs().map(n -> List.of("--seed", "" + n)),
        Arbitraries.of("0", "1", "0-1").map(t -> List.of("--taskset", t)),
        Arbitraries.of(
                "io-uring.depth=64",
                "run.status-interval=5us",
                "bioset.percpu-cache=false",
                "queue.iostats=true",
                "null-blk.hw-queue-depth=8",
                "dm.io-bs-slab-objects=4")
            .map(v -> List.of("--set", v)));
  }

  /**
   * A plausible command line with at most one thing wrong: {@code good} parts and, most of the
   * time, one {@code bad} part at a random place.
   */
  static Arbitrary<List<String>> withOneFault(
      Arbitrary<List<String>> good, Arbitrary<List<String>> bad) {
    return Combinators.combine(
            good.list().ofMaxSize(4),
            bad,
            Arbitraries.integers().between(0, 4),
            Arbitraries.integers().between(0, 9))
        .as(GoodInputs::inserted);
  }

  /** A valid dm-linear table line over the default null_blk, or one with a field wrong. */
  static Arbitrary<String> dmLine() {
    Arbitrary<String> good =
        Combinators.combine(
                Arbitraries.of("1024", "33554432", "524288000", "524287992"),
                Arbitraries.of("0", "0", "8", "1024"))
            .as((len, off) -> "0 " + len + " linear /dev/nullb0 " + off);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, good), net.jqwik.api.Tuple.of(2, BadInputs.dmTable()));
  }

  /** A reference.conf key with a value near its default, or anything. */
  static Arbitrary<String> keyValue() {
    com.typesafe.config.Config ref = ConfigFactory.defaultReference().getConfig("blksim");
    List<String> keys =
        ref.entrySet().stream()
            .map(e -> e.getKey())
            .filter(k -> !k.contains("\"") && !k.startsWith("profiles."))
            .sorted()
            .collect(Collectors.toList());
    return Combinators.combine(
            Arbitraries.of(keys), Arbitraries.integers().between(0, 9), BadInputs.value())
        .as((k, how, random) -> k + " = " + (how < 7 ? near(ref, k, how) : random));
  }

  /** {@code parts}, with {@code fault} at {@code at} seven times in ten ({@code coin}). */
  private static List<String> inserted(
      List<List<String>> parts, List<String> fault, int at, int coin) {
    List<List<String>> all = new java.util.ArrayList<>(parts);
    if (coin < 7) {
      all.add(Math.min(at, all.size()), fault);
    }
    return all.stream().flatMap(List::stream).toList();
  }

  /** The default of {@code k}, or a number or boolean next to it. */
  private static String near(com.typesafe.config.Config ref, String k, int how) {
    com.typesafe.config.ConfigValue v = ref.getValue(k);
    if (v.unwrapped() instanceof Number n && how < 4) {
      return String.valueOf(n.longValue() * 2 + how - 1);
    }
    if (v.unwrapped() instanceof Boolean b && how < 4) {
      return String.valueOf(!b);
    }
    return v.render(com.typesafe.config.ConfigRenderOptions.concise());
  }
}

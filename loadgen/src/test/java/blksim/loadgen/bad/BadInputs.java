package blksim.loadgen.bad;

import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Arbitraries of the inputs a careful new user, a pasted command line or someone else's scenario
 * gives blksim: mostly plausible, often wrong in one place — a value out of range, of the wrong
 * type, fractional, huge, empty, with a control character, a misspelt key, a missing value.
 */
final class BadInputs {
  private BadInputs() {}

  /** Numbers as text, from the plausible to the absurd, and things that are not numbers. */
  static Arbitrary<String> number() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(5, Arbitraries.integers().between(0, 64).map(String::valueOf)),
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(-2, 70_000).map(String::valueOf)),
        net.jqwik.api.Tuple.of(
            3,
            Arbitraries.of(
                "0",
                "-1",
                "1",
                "2",
                "32",
                "128",
                "4096",
                "32768",
                "32769",
                "65536",
                "2147483647",
                "2147483648",
                "4294967297",
                "9223372036854775807",
                "9223372036854775808",
                "18446744073709551616",
                "1e3",
                "1e18",
                "1e300",
                "1e-300",
                "0.5",
                "1.5",
                "16.9",
                "-0",
                "0x10",
                "010",
                "1_000",
                "NaN",
                "Infinity",
                "abc",
                "",
                " ",
                "\n",
                "\t1",
                "1\n2",
                "\u001b[31m",
                "\u0000",
                "\u202e1",
                "\ud800",
                "٣",
                "１",
                "1,2",
                "[1]",
                "{a=1}",
                "true",
                "${x}")));
  }

  /** Values for keys of any type. */
  static Arbitrary<String> value() {
    return Arbitraries.oneOf(
        number(),
        Arbitraries.of(
            "true",
            "false",
            "yes",
            "maybe",
            "on",
            "0",
            "1",
            "y",
            "n",
            "\"\"",
            "\"a\\nb\"",
            "10",
            "10ms",
            "1ns",
            "1us",
            "2h",
            "-1s",
            "1 s",
            "10 parsecs",
            "[]",
            "[1, 2]",
            "[\"a\"]",
            "[[1]]",
            "{}",
            "{ a = 1 }",
            "null",
            "akka",
            "sequential",
            "5.16",
            "begunkov-2021",
            "none",
            "leak-bio",
            "/dev/nullb0",
            "1,10,0,-1",
            "1,100,0,1"),
        Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(12),
        Arbitraries.strings().ofMaxLength(6));
  }

  /** The keys of reference.conf under blksim, and near misses of them. */
  static Arbitrary<String> key() {
    List<String> known =
        ConfigFactory.defaultReference().getConfig("blksim").entrySet().stream()
            .map(e -> e.getKey())
            .filter(k -> !k.contains("\""))
            .sorted()
            .collect(Collectors.toList());
    Arbitrary<String> exact = Arbitraries.of(known);
    Arbitrary<String> misspelt =
        Combinators.combine(exact, Arbitraries.integers().between(0, 3)).as(BadInputs::misspelt);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, exact),
        net.jqwik.api.Tuple.of(2, misspelt),
        net.jqwik.api.Tuple.of(
            1,
            Arbitraries.of(
                "engine.dispatcher.type",
                "engine.dispatcher.throughput",
                "engine.dispatcher.thread-pool-executor.fixed-pool-size",
                "profiles.begunkov-2021.facts.clock-ghz",
                "profiles.begunkov-2021.facts.bogus",
                "profiles.begunkov-2021.steps.io_read",
                "profiles.begunkov-2021.scale",
                "profiles.mine.extends",
                "akka.actor.provider",
                "",
                ".",
                "a..b",
                "\"q\"")));
  }

  /** t/io_uring's flags, with values. */
  static Arbitrary<List<String>> ioUringFlag() {
    Arbitrary<String> flag =
        Arbitraries.of(
            "-d", "-s", "-c", "-b", "-p", "-B", "-F", "-n", "-O", "-N", "-t", "-T", "-r", "-R",
            "-a", "-S", "-X", "-P", "-V", "-e", "-u", "-H", "-D", "-Q", "-");
    return Combinators.combine(flag, number(), Arbitraries.integers().between(0, 3))
        .as(BadInputs::flagWithValue);
  }

  /** blksim's own run options, with values. */
  static Arbitrary<List<String>> runOption() {
    return Arbitraries.oneOf(
        Combinators.combine(key(), value()).as((k, v) -> List.of("--set", k + "=" + v)),
        Arbitraries.of("--set").map(s -> List.of(s, "nokey")),
        nullBlkParams().map(p -> List.of("--null-blk", p)),
        dmTable().map(t -> List.of("--dm-table", t)),
        Combinators.combine(
                Arbitraries.of("--cpus", "--taskset", "--kernel", "--patch", "--profile", "--seed"),
                Arbitraries.oneOf(
                    number(),
                    Arbitraries.of(
                        "0-3",
                        "1,",
                        ",",
                        "3-1",
                        "0-99999",
                        "5.15",
                        "5.16",
                        "5.18",
                        "5.19",
                        "4.19",
                        "bio-init-compound",
                        "dm-clone-percpu-cache,nope",
                        "zen2-3970x",
                        "xeon-gold-6154",
                        "snitzer-2022",
                        "zen9")))
            .as(List::of));
  }

  /** null_blk module parameters in modprobe syntax. */
  static Arbitrary<String> nullBlkParams() {
    Arbitrary<String> name =
        Arbitraries.of(
            "queue_mode",
            "submit_queues",
            "poll_queues",
            "hw_queue_depth",
            "irqmode",
            "completion_nsec",
            "bs",
            "gb",
            "nr_devices",
            "no_sched",
            "home_node",
            "requeue",
            "timeout",
            "zoned",
            "blocking",
            "null_blk.irqmode",
            "hw-queue-depth",
            "bogus",
            "");
    Arbitrary<String> token =
        Combinators.combine(name, number(), Arbitraries.integers().between(0, 4))
            .as(BadInputs::paramToken);
    Arbitrary<String> good =
        Arbitraries.oneOf(
            Arbitraries.integers().between(1, 4).map(n -> "submit_queues=" + n),
            Arbitraries.integers().between(0, 4).map(n -> "poll_queues=" + n),
            Arbitraries.integers().between(1, 256).map(n -> "hw_queue_depth=" + n),
            Arbitraries.integers().between(0, 2).map(n -> "irqmode=" + n),
            Arbitraries.integers().between(0, 20_000).map(n -> "completion_nsec=" + n),
            Arbitraries.of(
                "bs=512",
                "bs=4096",
                "gb=1",
                "gb=250",
                "nr_devices=2",
                "no_sched",
                "no_sched=0",
                "home_node=0",
                "queue_mode=2",
                "requeue=1,10,0,-1",
                "timeout=1,100,0,1",
                "requeue=10,50,0,3"));
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(4, good), net.jqwik.api.Tuple.of(1, token))
        .list()
        .ofMinSize(1)
        .ofMaxSize(4)
        .map(l -> String.join(" ", l));
  }

  /** Device-mapper tables in dmsetup syntax, one to three lines. */
  static Arbitrary<String> dmTable() {
    Arbitrary<String> sectors =
        Arbitraries.oneOf(
            number(), Arbitraries.of("1024", "524288000", "524287999", "33554432", "8"));
    Arbitrary<String> type = Arbitraries.of("linear", "linear", "linear", "flakey", "striped", "");
    Arbitrary<String> dev =
        Arbitraries.of("/dev/nullb0", "/dev/nullb0", "/dev/nullb1", "/dev/dm-0", "252:0", "x");
    Arbitrary<String> line =
        Combinators.combine(
                sectors, sectors, type, dev, number(), Arbitraries.integers().between(0, 5))
            .as(BadInputs::dmLineOf);
    return Combinators.combine(
            line.list().ofMinSize(1).ofMaxSize(3), Arbitraries.of(";", "\n", " ; "))
        .as((lines, sep) -> String.join(sep, lines));
  }

  /** Files on a t/io_uring command line. */
  static Arbitrary<String> file() {
    return Arbitraries.of(
        "/dev/nullb0",
        "/dev/nullb0",
        "/dev/nullb0",
        "/dev/nullb1",
        "/dev/dm-0",
        "/dev/dm-1",
        "/dev/nullb99999999999999999999",
        "/dev/sda",
        "nullb0",
        "",
        "-",
        "/dev/nullb0\n");
  }

  /** HOCON scenario files: a few lines of key = value, and sometimes worse. */
  static Arbitrary<String> hocon() {
    Arbitrary<String> bad =
        Arbitraries.oneOf(
            Combinators.combine(key(), value()).as((k, v) -> "blksim." + k + " = " + v),
            Combinators.combine(key(), value()).as((k, v) -> k + " = " + v),
            Arbitraries.of(
                "blksim {",
                "}",
                "blksim.run { runtime = 10us }",
                "include \"nowhere.conf\"",
                "blksim.run.seed = ${blksim.run.seed}",
                "blksim.run.seed = ${nope}",
                "blksim.profiles.mine { extends = begunkov-2021, scale = 2 }",
                "blksim.cpu.profile = mine",
                "blksim.dm.tables = [\"0 1024 linear /dev/nullb0 0\"]",
                "blksim.dm.suspend = [\"dm-0 at 5us for 2us\"]",
                "a = " + "[".repeat(600),
                "blksim.io-uring.files = [\"/dev/dm-0\"]",
                "\"\"",
                "=",
                "blksim.null-blk = 3"));
    Arbitrary<String> good = GoodInputs.keyValue().map(kv -> "blksim." + kv);
    return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(8, good), net.jqwik.api.Tuple.of(1, bad))
        .list()
        .ofMinSize(1)
        .ofMaxSize(4)
        .map(l -> String.join("\n", l));
  }

  /** Names of the path's functions a patch may change or be called from, and near misses. */
  static Arbitrary<String> function() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "bio_init",
            "submit_bio_noacct",
            "blk_mq_submit_bio",
            "io_issue_sqe",
            "blkdev_iopoll",
            "iocb_bio_iopoll",
            "__blkdev_direct_IO_async",
            "null_poll",
            "io_uring_enter",
            "__rcu_read_lock",
            "bio_iov_bvec_set"),
        Arbitraries.of(
            "bio_inti", "", "\"fio (user space)\"", "blk_mq_submit_bio_", "\"a.b\"", "1", "\"\""));
  }

  /** The units of work, and near misses. */
  static Arbitrary<String> unit() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "l1-loads",
            "l2-loads",
            "calls",
            "indirect-calls",
            "stores",
            "atomics",
            "irq-save-restore",
            "ktime",
            "rep-stos-qwords",
            "cachelines",
            "ns"),
        Arbitraries.of("l1-load", "call", "cycles", "called-from", "per-call", "NS", ""));
  }

  /**
   * Patch files ({@code --patch-file}): a patch {@code mine} with a few changes and adds, each line
   * plausible or wrong in one place; and the name given to {@code --patch}.
   */
  static Arbitrary<List<String>> patchFile() {
    Arbitrary<String> count =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(-3, 4).map(String::valueOf)),
            net.jqwik.api.Tuple.of(1, Arbitraries.of("0.5", "-0.25", "1e6", "-40", "16")),
            net.jqwik.api.Tuple.of(2, value()));
    Arbitrary<String> work =
        Combinators.combine(unit(), count, unit(), count)
            .as((u, n, v, m) -> u + " = " + n + ", " + v + " = " + m);
    Arbitrary<String> change =
        Combinators.combine(function(), work).as((f, w) -> "changes { " + f + " { " + w + " } }");
    Arbitrary<String> perCall =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(3, Arbitraries.just("")),
            net.jqwik.api.Tuple.of(2, count.map(n -> "per-call = " + n + ", ")));
    Arbitrary<String> add =
        Combinators.combine(
                Arbitraries.of("__audit_uring_entry", "ktime_get_ns", "bio_init", "\"x y\""),
                function(),
                perCall,
                work)
            .as(BadInputs::added);
    Arbitrary<String> with =
        Combinators.combine(
                Arbitraries.of("bdev-cache-in-file", "mine", "nope", "plug-batch-alloc"),
                function(),
                work)
            .as((o, f, w) -> "with { " + o + " { " + f + " { " + w + " } } }");
    Arbitrary<String> other =
        Arbitraries.of(
            "description = \"mine\"",
            "source = 3",
            "source = \"lore <id>\"",
            "bogus = 1",
            "changes = 1",
            "adds { }",
            "changes { bio_init = 2 }",
            "adds { f { calls = 1 } }",
            "{",
            "}");
    Arbitrary<String> body =
        Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, change),
                net.jqwik.api.Tuple.of(3, add),
                net.jqwik.api.Tuple.of(1, with),
                net.jqwik.api.Tuple.of(1, other))
            .list()
            .ofMinSize(0)
            .ofMaxSize(3)
            .map(l -> String.join("\n  ", l));
    Arbitrary<String> head =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(8, Arbitraries.just("patches.mine")),
            net.jqwik.api.Tuple.of(
                1,
                Arbitraries.of(
                    "patches.plug-batch-alloc",
                    "patches.bdev-cache-in-file",
                    "blksim.patches.mine",
                    "blksim.run.mine",
                    "patches.\"mine\"",
                    "mine",
                    "patches")));
    Arbitrary<String> name =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(8, Arbitraries.just("mine")),
            net.jqwik.api.Tuple.of(
                1, Arbitraries.of("bdev-cache-in-file", "yours", "no-mine", "mine,rqf-elv", "")));
    return Combinators.combine(head, body, name)
        .as((h, b, n) -> List.of(h + " {\n  " + b + "\n}\n", n));
  }

  private static String added(String fn, String from, String perCall, String work) {
    return "adds { " + fn + " { called-from = " + from + ", " + perCall + work + " } }";
  }

  private static String misspelt(String k, int how) {
    return switch (how) {
      case 0 -> k.substring(0, k.length() - 1);
      case 1 -> k + "s";
      case 2 -> k.replace('-', '_');
      default -> "akka." + k;
    };
  }

  private static List<String> flagWithValue(String f, String v, int how) {
    return switch (how) {
      case 0 -> List.of(f + v);
      case 1 -> List.of(f);
      default -> List.of(f, v);
    };
  }

  private static String paramToken(String n, String v, int how) {
    return switch (how) {
      case 0 -> n;
      case 1 -> n + "=";
      default -> n + "=" + v;
    };
  }

  private static String dmLineOf(
      String start, String len, String t, String d, String off, int how) {
    return switch (how) {
      case 0 -> start + " " + len + " " + t;
      case 1 -> "0 " + len + " " + t + " " + d;
      case 2 -> start + " " + len + " " + t + " " + d + " " + off + " extra";
      default -> "0 " + len + " " + t + " " + d + " " + off;
    };
  }
}

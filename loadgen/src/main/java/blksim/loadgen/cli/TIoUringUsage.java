package blksim.loadgen.cli;

import blksim.config.BlksimSettings;
import blksim.config.IoUringSettings;
import java.io.PrintStream;

/** {@code blksim io_uring -h}: t/io_uring's usage text, then blksim's own options. */
final class TIoUringUsage {
  private TIoUringUsage() {}

  static void print(PrintStream out) {
    IoUringSettings d = BlksimSettings.defaults().ioUring();
    out.println("blksim io_uring [options] -- [filenames]");
    out.println(" -d <int>  : IO Depth, default 128");
    out.println(" -s <int>  : Batch submit, default 32");
    out.println(" -c <int>  : Batch complete, default 32");
    out.println(" -b <int>  : Block size, default 4096");
    out.println(" -p <bool> : Polled IO, default " + bit(d.polled()));
    out.println(" -B <bool> : Fixed buffers, default " + bit(d.fixedBuffers()));
    out.println(" -F <bool> : Register files, default " + bit(d.registerFiles()));
    out.println(" -n <int>  : Number of threads, default " + d.threads());
    out.println(" -O <bool> : Use O_DIRECT, default " + bit(d.oDirect()));
    out.println(" -N <bool> : Perform just no-op requests, default " + bit(d.nop()));
    out.println(" -t <bool> : Track IO latencies, default " + bit(d.trackLatencies()));
    out.println(" -T <int>  : TSC rate in HZ");
    out.println(" -r <int>  : Runtime in seconds of virtual time, default 1");
    out.println(" -R <bool> : Use random IO, default " + bit(d.randomIo()));
    out.println(" -a <bool> : Use legacy aio, default " + bit(d.aio()));
    out.println(" -S <bool> : Use sync IO (preadv2), default " + bit(d.syncIo()));
    out.println(" -X <bool> : Use registered ring " + bit(d.registerRing()));
    out.println(" -P <bool> : Automatically place on device home node " + bit(d.numaPlacement()));
    out.println(" -V <bool> : Vectored IO, default " + bit(d.vectored()));
    out.println(" -e <bool> : Set restriction filter on opcodes " + bit(d.restriction()));
    out.println(" -u <bool> : Use nvme-passthrough I/O, default " + bit(d.passthrough()));
    out.println(" -H <path> : Use hugetlbfs file for IO buffers");
    out.println("blksim options:");
    out.println(" --cpus <N>                    : CPUs of the machine, default 2");
    out.println(" --taskset <list>              : CPUs the threads run on, as taskset -c: 0-3,8");
    out.println(
        " --profile <name>              : the CPU cost profile, default "
            + HelpLists.defaultProfile());
    out.println("                                 (" + HelpLists.profiles() + ")");
    out.println(" --profile-file <FILE>         : profiles of your own (repeatable)");
    out.println(" --kernel <name>               : a named kernel: " + HelpLists.kernels());
    wrapped(out, " --patch <a,b>                 : patches to turn on: " + HelpLists.patches());
    out.println(" --patch-file <FILE>           : patches of your own, as data (repeatable)");
    out.println(" --null-blk '<name=value ...>' : null_blk module parameters, modprobe syntax");
    out.println(" --dm-table '<table>'          : a dm-linear table for the next /dev/dm-N,");
    out.println("                                 lines split by ';' (repeatable)");
    out.println(" --set <path=value>            : override any HOCON key (repeatable)");
    out.println(" --seed <N>                    : root seed of every random stream, default 1");
    out.println(" --json <FILE>                 : also write the figures as JSON");
    out.println(" --csv <FILE>                  : also write the figures as CSV (docs/usage.md)");
    out.println(" --out <DIR>                   : also write the run's directory (blksim report)");
    out.println(
        " --engine <akka|sequential>    : how the model is driven (same output), default akka");
    out.println(" -h, --help                    : print this help and exit");
  }

  /** {@code line}, wrapped at a comma before column 100, its other lines under the colons' text. */
  private static void wrapped(PrintStream out, String line) {
    String indent = " ".repeat(33);
    String rest = line;
    while (rest.length() > 100) {
      int cut = rest.lastIndexOf(", ", 99);
      if (cut <= indent.length()) {
        break;
      }
      out.println(rest.substring(0, cut + 1));
      rest = indent + rest.substring(cut + 2);
    }
    out.println(rest);
  }

  private static int bit(boolean b) {
    return b ? 1 : 0;
  }
}

package blksim.loadgen.cli;

import picocli.CommandLine.Option;

/** {@code -h}/{@code --help} of a blksim subcommand, mixed into each with {@code @Mixin}. */
final class HelpOption {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Print this help and exit.")
  boolean help;
}

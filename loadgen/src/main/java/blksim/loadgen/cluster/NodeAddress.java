package blksim.loadgen.cluster;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** A node's HOST:PORT as the command line gives it ({@code [::1]:2552} for IPv6). */
public record NodeAddress(String host, int port) {
  /**
   * Parses {@code text} for {@code option}; a port of 0 (any free one) only where {@code anyPort}.
   */
  public static NodeAddress parse(String text, String option, boolean anyPort) {
    String t = text == null ? "" : text.trim();
    int colon = t.lastIndexOf(':');
    String accepted =
        "; give HOST:PORT, e.g. "
            + option
            + " 127.0.0.1:25520 (an IPv6 address in brackets: [::1]:25520)";
    if (colon <= 0 || colon == t.length() - 1) {
      throw new ConfigError(
          option + " " + OneLine.quoted(OneLine.clipped(t)) + ": no port" + accepted);
    }
    String host = t.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      throw new ConfigError(
          option
              + " "
              + OneLine.quoted(OneLine.clipped(t))
              + ": an IPv6 address goes in brackets"
              + accepted);
    }
    if (host.isEmpty() || !host.matches("[A-Za-z0-9.:_-]+")) {
      throw new ConfigError(
          option + " " + OneLine.quoted(OneLine.clipped(t)) + ": not a host name" + accepted);
    }
    int port;
    try {
      port = Integer.parseInt(t.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new ConfigError(
          option
              + " "
              + OneLine.quoted(OneLine.clipped(t))
              + ": the port is not a number"
              + accepted);
    }
    if (port < (anyPort ? 0 : 1) || port > 65535) {
      throw new ConfigError(
          option
              + " "
              + OneLine.quoted(OneLine.clipped(t))
              + ": port "
              + port
              + " out of range; accepted "
              + (anyPort ? 0 : 1)
              + " to 65535");
    }
    return new NodeAddress(host, port);
  }

  /** Whether the host is this machine's loopback address, resolved once here. */
  public boolean loopback(String option) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new ConfigError(option + " " + host + ": cannot resolve the host name");
    }
  }

  /** The host as Akka's addresses take it. */
  String akkaHost() {
    return host;
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}

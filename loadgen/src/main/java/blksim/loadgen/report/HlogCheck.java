package blksim.loadgen.report;

import blksim.config.ConfigError;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * A run directory's {@code latency.hlog} read line by line before HdrHistogram's reader sees it:
 * the reader skips what it cannot parse and fails on a damaged histogram with its own exceptions,
 * so a damaged log would be drawn without latency, or not at all without saying why. Each damage is
 * one line naming the file, the line and what is wrong.
 */
final class HlogCheck {
  private HlogCheck() {}

  static final String NOT_A_LOG = "not an HdrHistogram interval log, as --out writes it";

  private static final String LEGEND =
      "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"";

  /** An interval: an optional tag, start, length and max in seconds, a histogram in base64. */
  private static final Pattern INTERVAL =
      Pattern.compile("(Tag=[^,]+,)?[0-9]+\\.[0-9]+,[0-9]+\\.[0-9]+,[0-9]+\\.[0-9]+,(\\S+)");

  /**
   * Checks {@code hlog}.
   *
   * @throws ConfigError naming the file and what is wrong with it
   */
  static void check(Path hlog) throws IOException {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(Files.readAllBytes(hlog)))
              .toString();
    } catch (CharacterCodingException e) {
      throw new ConfigError(hlog + ": not text: " + NOT_A_LOG);
    }
    String[] lines = text.split("\n", -1);
    boolean legend = false;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      int n = i + 1;
      if (i == lines.length - 1) {
        if (!line.isEmpty()) {
          throw new ConfigError(
              hlog + ": line " + n + " is cut short (the file ends in the middle of it)");
        }
        break;
      }
      if (line.startsWith("#")) {
        continue;
      }
      if (line.equals(LEGEND)) {
        legend = true;
        continue;
      }
      Matcher m = INTERVAL.matcher(line);
      if (!legend || !m.matches()) {
        throw new ConfigError(
            hlog
                + ": line "
                + n
                + (legend ? " is not an interval" : " comes before the log's legend line")
                + ": "
                + NOT_A_LOG);
      }
      decode(hlog, n, m.group(2));
    }
    if (!legend) {
      throw new ConfigError(hlog + ": no legend line (\"StartTimestamp\",...): " + NOT_A_LOG);
    }
  }

  private static void decode(Path hlog, int n, String base64) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new ConfigError(hlog + ": line " + n + ": the histogram's base64 is corrupted");
    }
    try {
      Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
    } catch (java.util.zip.DataFormatException | RuntimeException e) {
      throw new ConfigError(
          hlog + ": line " + n + ": the histogram does not decode (its bytes are damaged)");
    }
  }
}

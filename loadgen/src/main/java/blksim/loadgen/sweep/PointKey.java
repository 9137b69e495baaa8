package blksim.loadgen.sweep;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigRenderOptions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * What names a point's results: the hash of blksim's version, its model version ({@link
 * ModelVersion}) and the point's fully resolved configuration, every {@code blksim} key with the
 * costs of every profile. Two points with the same key give the same bytes, wherever and however
 * often they run.
 */
public record PointKey(String hex, String config) {
  /** Hex digits of the hash that name a point's directory: 80 bits. */
  static final int DIGITS = 20;

  /** The key of the run whose resolved configuration is {@code resolved}. */
  public static PointKey of(Config resolved) {
    return of(canonical(resolved), ModelVersion.current());
  }

  static PointKey of(String config, String modelVersion) {
    MessageDigest sha = ModelVersion.sha256();
    sha.update(("blksim " + ModelVersion.BLKSIM + "\n").getBytes(StandardCharsets.UTF_8));
    sha.update(("model " + modelVersion + "\n").getBytes(StandardCharsets.UTF_8));
    sha.update(config.getBytes(StandardCharsets.UTF_8));
    return new PointKey(HexFormat.of().formatHex(sha.digest()).substring(0, DIGITS), config);
  }

  /** The {@code blksim} keys of {@code resolved} as JSON, keys sorted, without origins. */
  public static String canonical(Config resolved) {
    return resolved
        .getConfig("blksim")
        .atKey("blksim")
        .root()
        .render(ConfigRenderOptions.concise());
  }
}

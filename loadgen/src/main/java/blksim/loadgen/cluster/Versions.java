package blksim.loadgen.cluster;

import blksim.loadgen.sweep.ModelVersion;

/**
 * blksim's version and model version as a message carries them: a node of another build is refused,
 * never computed for.
 */
public record Versions(String blksim, String model) implements ClusterMessage {
  /** This build's. */
  public static Versions here() {
    return new Versions(ModelVersion.BLKSIM, ModelVersion.current());
  }

  /** Null when {@code other} is this build's, else why not, for the line that refuses it. */
  public String mismatch(Versions other) {
    if (other == null) {
      return "it carries no version";
    }
    if (!blksim.equals(other.blksim)) {
      return "it is blksim " + other.blksim + ", this node blksim " + blksim;
    }
    if (!model.equals(other.model)) {
      return "its model version is "
          + other.model.substring(0, 12)
          + "..., this node's "
          + model.substring(0, 12)
          + "... (another build)";
    }
    return null;
  }
}

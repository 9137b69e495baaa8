package blksim.config;

import com.typesafe.config.Config;

/**
 * Which engine drives the model.
 *
 * @param kind akka (actors and a clock actor) or sequential (a plain event loop)
 * @param akkaConfig the whole resolved configuration, from which the Akka engine takes its
 *     dispatcher ({@code blksim.engine.dispatcher}) and any {@code akka.*} settings
 * @param divergeOnPurpose a test switch: the sequential engine swaps messages due at one instant
 */
public record EngineSettings(Kind kind, Config akkaConfig, boolean divergeOnPurpose) {

  /** The engines; both give the same bytes. */
  public enum Kind {
    AKKA,
    SEQUENTIAL
  }

  /** Path of the simulation dispatcher inside {@link #akkaConfig()}. */
  public static final String DISPATCHER_PATH = "blksim.engine.dispatcher";

  static EngineSettings from(SettingsReader r) {
    return new EngineSettings(
        r.oneOf("blksim.engine.kind", Kind.class),
        r.config(),
        r.bool("blksim.engine.diverge-on-purpose"));
  }
}

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
    // The dispatcher is Akka's, read by Akka: checked here so that a bad value is one line before
    // the run, not a guardian that fails inside it (docs/model.md 2: one thread, high throughput).
    String d = DISPATCHER_PATH + ".";
    if (!"Dispatcher".equals(r.string(d + "type"))) {
      throw new ConfigError(
          r.where(d + "type")
              + d
              + "type = "
              + OneLine.quoted(r.string(d + "type"))
              + " is not accepted: Dispatcher");
    }
    if (!"thread-pool-executor".equals(r.string(d + "executor"))) {
      throw new ConfigError(
          r.where(d + "executor")
              + d
              + "executor = "
              + OneLine.quoted(r.string(d + "executor"))
              + " is not accepted: thread-pool-executor");
    }
    r.intIn(d + "thread-pool-executor.fixed-pool-size", 1, 64);
    r.intIn(d + "throughput", 1, 1_000_000);
    return new EngineSettings(
        r.oneOf("blksim.engine.kind", Kind.class),
        r.config(),
        r.bool("blksim.engine.diverge-on-purpose"));
  }
}

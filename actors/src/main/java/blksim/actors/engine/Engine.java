package blksim.actors.engine;

/**
 * Drives a run: delivers every message in (virtual time, sequence) order until none is left.
 * Engines differ only in how the components are hosted; a run gives the same bytes on each.
 */
public interface Engine {
  /**
   * Runs the components of {@code registry} from its initial messages until no message is left.
   *
   * @throws RuntimeException whatever a component threw, which ends the run
   */
  EngineRun run(Registry registry);

  /**
   * What an engine reports about a run.
   *
   * @param endPs virtual time of the last message delivered
   * @param messages messages delivered
   */
  record EngineRun(long endPs, long messages) {}
}

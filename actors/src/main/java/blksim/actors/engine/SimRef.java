package blksim.actors.engine;

/**
 * The address of a component, whichever engine hosts it: an index into the run's {@link Registry},
 * typed by the messages the component understands.
 *
 * @param id index in the registry
 * @param name the component's name (cpu0, hctx1, nullb0)
 */
public record SimRef<M extends SimMessage>(int id, String name) {}

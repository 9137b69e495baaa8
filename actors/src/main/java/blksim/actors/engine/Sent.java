package blksim.actors.engine;

/**
 * A message on its way to the clock: the target's registry index and the message.
 *
 * @param target {@link SimRef#id()} of the receiver
 */
public record Sent(int target, SimMessage message) {}

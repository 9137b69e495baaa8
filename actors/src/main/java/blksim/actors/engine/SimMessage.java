package blksim.actors.engine;

/** A message of the model: it happens at a point of virtual time, which the clock orders by. */
public interface SimMessage {
  /** Virtual time at which the message is delivered, in picoseconds. */
  long atPs();
}

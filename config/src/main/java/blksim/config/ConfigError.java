package blksim.config;

/**
 * Bad input: a key, value, flag or parameter that blksim does not accept.
 *
 * <p>The message is the single line printed to the user; it names what was wrong and what would be
 * accepted. The command line maps this exception to exit status 2.
 */
public final class ConfigError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigError(String message) {
    super(message, null, false, false);
  }
}

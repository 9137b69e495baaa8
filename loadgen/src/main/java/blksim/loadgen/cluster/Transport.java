package blksim.loadgen.cluster;

import blksim.config.ConfigError;
import blksim.config.OneLine;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

/**
 * How a node talks to the others (docs/cluster.md): plain TCP on the loopback address only; any
 * other address needs TLS with mutual authentication from a key store the user names (also the
 * trust store: the nodes that hold its key are the cluster), or {@code --insecure-plain-tcp}, which
 * warns.
 */
public record Transport(Path keyStore, String password, boolean insecurePlain) {
  /** The environment variable that holds the key store's password. */
  public static final String PASSWORD_ENV = "BLKSIM_KEY_STORE_PASSWORD";

  /**
   * The transport that the options ask for, checked: a key store that cannot be opened, or a
   * non-loopback address without TLS or the insecure flag, is one line.
   */
  public static Transport of(
      Path keyStore,
      boolean insecurePlain,
      String password,
      boolean loopback,
      String where,
      PrintStream err) {
    if (keyStore != null && insecurePlain) {
      throw new ConfigError("--key-store and --insecure-plain-tcp: give one of them, not both");
    }
    if (keyStore != null) {
      if (password == null || password.isEmpty()) {
        throw new ConfigError(
            "--key-store "
                + keyStore
                + ": set its password in the environment, "
                + PASSWORD_ENV
                + "=...");
      }
      check(keyStore, password);
      return new Transport(keyStore, password, false);
    }
    if (!loopback && !insecurePlain) {
      throw new ConfigError(
          where
              + " is not a loopback address: give --key-store FILE (TLS with mutual authentication,"
              + " docs/cluster.md) or, on a network you trust, --insecure-plain-tcp");
    }
    if (insecurePlain) {
      err.println(
          "blksim: warning: --insecure-plain-tcp: any host that reaches "
              + where
              + " can join the cluster and send it points; use --key-store on a network you do not trust");
    }
    return new Transport(null, null, insecurePlain);
  }

  /** Whether TLS is on. */
  public boolean tls() {
    return keyStore != null;
  }

  /** Opens the key store as Akka will, so that a bad one is one line before any node starts. */
  private static void check(Path keyStore, String password) {
    String where = "--key-store " + OneLine.of(keyStore.toString());
    if (!Files.isRegularFile(keyStore)) {
      throw new ConfigError(where + ": no such file");
    }
    try (InputStream in = Files.newInputStream(keyStore)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(in, password.toCharArray());
      if (ks.size() == 0 || !ks.aliases().hasMoreElements()) {
        throw new ConfigError(where + ": holds no key; make one with keytool (docs/cluster.md)");
      }
      boolean key = false;
      for (String alias : java.util.Collections.list(ks.aliases())) {
        key |= ks.isKeyEntry(alias);
      }
      if (!key) {
        throw new ConfigError(
            where + ": holds no private key; make one with keytool -genkeypair (docs/cluster.md)");
      }
    } catch (IOException e) {
      String m =
          e.getCause() instanceof java.security.UnrecoverableKeyException
                  || String.valueOf(e.getMessage()).contains("password")
              ? "wrong password (" + PASSWORD_ENV + ") or not a key store"
              : "cannot read it as a PKCS12 key store: "
                  + OneLine.of(String.valueOf(e.getMessage()));
      throw new ConfigError(where + ": " + m);
    } catch (GeneralSecurityException e) {
      throw new ConfigError(
          where + ": cannot read it as a key store: " + OneLine.of(String.valueOf(e.getMessage())));
    }
  }
}
